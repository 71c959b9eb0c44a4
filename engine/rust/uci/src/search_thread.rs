//! The one thread every search runs on, kept for the engine's life. A thread per `go` paid for
//! its creation and for the page faults of a fresh 8 MiB stack on every move: a tenth of a
//! 2,000-node search.

use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Sender};
use std::thread::{self, Thread};

/// The search thread's stack: the search recurses up to 128 plies.
const STACK_BYTES: usize = 8 << 20;

/// A search to run: it hands its result back through a channel of its own.
pub type Job = Box<dyn FnOnce() + Send>;

pub struct SearchThread {
    jobs: Sender<Job>,
    thread: Thread,
}

impl SearchThread {
    pub fn spawn() -> io::Result<SearchThread> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let handle = thread::Builder::new().name("search".into()).stack_size(STACK_BYTES).spawn(move || {
            for job in queue {
                // A job that panics drops its result channel: its caller hears of it there.
                let _ = panic::catch_unwind(AssertUnwindSafe(job));
            }
        })?;
        Ok(SearchThread { jobs, thread: handle.thread().clone() })
    }

    /// Queues `job` on the thread (after the job before it); gives it back if the thread is gone.
    pub fn run(&self, job: Job) -> Result<(), Job> {
        self.jobs.send(job).map_err(|e| e.0)
    }

    /// The thread, to unpark a search waiting for `stop`.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_in_order_on_one_thread_and_a_panic_does_not_end_it() {
        let thread = SearchThread::spawn().unwrap();
        let (done, results) = mpsc::channel();
        for i in 0..3 {
            let done = done.clone();
            assert!(thread.run(Box::new(move || done.send((i, thread::current().id())).unwrap())).is_ok());
        }
        let (failed, failure) = mpsc::channel::<()>();
        assert!(thread
            .run(Box::new(move || {
                let _keep = failed;
                panic!("a failing search")
            }))
            .is_ok());
        assert!(failure.recv().is_err());
        let last = done.clone();
        assert!(thread.run(Box::new(move || last.send((3, thread::current().id())).unwrap())).is_ok());
        let got: Vec<_> = (0..4).map(|_| results.recv().unwrap()).collect();
        assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert!(got.iter().all(|r| r.1 == thread.thread().id()));
    }
}
