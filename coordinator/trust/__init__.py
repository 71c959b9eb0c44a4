"""The trust boundary: a worker's result counts only once the coordinator has checked it itself."""
