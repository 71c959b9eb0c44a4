"""arbiter's coordinator: the CLI, statistics, run store, executors, scheduler and tuner."""
