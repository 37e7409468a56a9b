//! What the host process does around a session, and how the session follows: `fork()`,
//! `exit()`, and the terminating signals SIGTERM and SIGINT (Unix). This module knows
//! nothing of the session: the session hands it the functions to call at exit
//! ([`register_process_hooks`]) and on a signal ([`Signals::install`]).
//!
//! * **fork.** `pthread_atfork` handlers take every lock of the profiler before the
//!   address space is copied and release them after it in both processes: each registry
//!   registered its lock with `hotpath_core::fork` at its first use, with its rank in the
//!   one lock order (`hotpath_core::fork::Rank`); in the child they also stop CPU
//!   sampling and retire the shards of the threads that were not copied. So no lock of
//!   the profiler can be held forever in a child. The session itself knows the pid it started in: a child that
//!   ends it joins no thread (the parent's threads do not exist there) and writes no
//!   report, unless `HOTPATH_REPORT_FORKS=1` asks for one per process.
//! * **exit.** An `atexit` handler writes the report of a session still running when the
//!   process exits (`std::process::exit`, a guard that was leaked, the end of `main`
//!   with the guard in a static).
//! * **SIGTERM, SIGINT.** When the program has not installed a handler of its own for
//!   one (its disposition is the default when the session starts), the session
//!   installs one. It only writes the signal's number to a pipe (async-signal-safe);
//!   the thread `hotpath-signals` reads it, writes the report, restores the default
//!   disposition and sends the signal again, so the process ends as it would have,
//!   with the same status. A handler the program installs later replaces the session's
//!   and is never disturbed, also when it calls the handler it replaced (as tokio's
//!   `signal::ctrl_c()` and signal-hook do): the session's handler then sees that the
//!   disposition is no longer its own and does nothing, so the program's own shutdown
//!   runs and its guard writes the report. In a forked child the handler restores the
//!   default and re-raises at once.
//!
//! # Safety invariants
//!
//! * The signal handler calls only `getpid`, `write`, `sigaction` and `raise`, all
//!   async-signal-safe, and reads only atomics.
//! * The fork handlers allocate nothing: each lock's guard is kept in a thread-local of
//!   the forking thread (the same thread runs the prepare, parent and child handlers).

#[cfg(unix)]
pub(crate) use unix::*;

#[cfg(not(unix))]
pub(crate) use other::*;

#[cfg(not(unix))]
mod other {
    /// Nothing to register on this system.
    pub(crate) fn register_process_hooks(_on_exit: fn()) {}

    /// Writes to the standard output.
    pub(crate) fn write_stdout(bytes: &[u8]) {
        use std::io::Write;
        let _ = std::io::stdout().write_all(bytes);
    }

    /// The signal handlers of one session (none on this system).
    #[derive(Debug)]
    pub(crate) struct Signals;

    impl Signals {
        pub(crate) fn install(_on_signal: fn(i32)) -> Option<Signals> {
            None
        }

        pub(crate) fn uninstall(self) {}
    }
}

#[cfg(unix)]
#[allow(unsafe_code)]
mod unix {
    use std::sync::atomic::{AtomicI32, Ordering::Relaxed};
    use std::sync::{Once, OnceLock};
    use std::thread::JoinHandle;

    /// What the `atexit` handler calls: the session's `on_exit` of the first
    /// registration.
    static ON_EXIT: OnceLock<fn()> = OnceLock::new();

    /// Registers the `pthread_atfork` and `atexit` handlers, once per process; the
    /// `atexit` one calls `on_exit`.
    pub(crate) fn register_process_hooks(on_exit: fn()) {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let _ = ON_EXIT.set(on_exit);
            // SAFETY: the handlers are `extern "C"` functions that never unwind (they
            // call only functions that do not panic) and live as long as the process.
            unsafe {
                libc::pthread_atfork(Some(prepare), Some(parent), Some(child));
                libc::atexit(at_exit);
            }
        });
    }

    // The profiler's registries registered themselves with the core at first use, each
    // with its rank in the one lock order (`hotpath_core::fork::Rank`).
    extern "C" fn prepare() {
        hotpath_core::fork::prepare();
    }

    extern "C" fn parent() {
        hotpath_core::fork::parent();
    }

    extern "C" fn child() {
        hotpath_core::fork::child();
    }

    extern "C" fn at_exit() {
        if let Some(on_exit) = ON_EXIT.get() {
            on_exit();
        }
    }

    /// The pid whose session installed the handlers (0: none installed).
    static PID: AtomicI32 = AtomicI32::new(0);
    /// The pipe's write end, for the handler.
    static PIPE_W: AtomicI32 = AtomicI32::new(-1);

    /// The signals the session reports on.
    const SIGNALS: [libc::c_int; 2] = [libc::SIGTERM, libc::SIGINT];

    extern "C" fn on_signal(sig: libc::c_int) {
        // Called while our handler is no longer the disposition: the program installed
        // its own later (tokio's `signal::ctrl_c()`, signal-hook) and that one chains to
        // the handler it found. The program handles the signal: its shutdown runs and
        // its guard writes the report; neither a report here nor the default action.
        if current(sig) != handler() {
            return;
        }
        // SAFETY: getpid is async-signal-safe and cannot fail.
        let me = unsafe { libc::getpid() };
        let w = PIPE_W.load(Relaxed);
        if me == PID.load(Relaxed) && w >= 0 {
            let byte = [sig as u8];
            // SAFETY: `write` of one byte from a live local is async-signal-safe; `w` is
            // the session's pipe, open while the handler is installed.
            if unsafe { libc::write(w, byte.as_ptr().cast(), 1) } == 1 {
                return;
            }
        }
        // A forked child, or no way to reach the session: end as without the handler.
        reraise(sig);
    }

    /// Restores the default disposition of `sig` and sends it to the process again.
    /// Async-signal-safe.
    fn reraise(sig: libc::c_int) {
        set_default(sig);
        // SAFETY: raising a signal has no memory effects; with the default disposition
        // SIGTERM and SIGINT end the process.
        unsafe {
            libc::raise(sig);
        }
    }

    fn set_default(sig: libc::c_int) {
        // SAFETY: zero is a valid `sigaction`; with `SIG_DFL` it restores the default.
        let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
        sa.sa_sigaction = libc::SIG_DFL;
        // SAFETY: `sa` is a valid action; sigaction is async-signal-safe.
        unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) };
    }

    /// The current handler of `sig`.
    fn current(sig: libc::c_int) -> libc::sighandler_t {
        // SAFETY: a null new action only reads the current one into `old`.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) };
        old.sa_sigaction
    }

    fn handler() -> libc::sighandler_t {
        on_signal as *const () as libc::sighandler_t
    }

    /// The session's handlers of SIGTERM and SIGINT and the thread that reports for them.
    #[derive(Debug)]
    pub(crate) struct Signals {
        /// The signals whose handler is the session's.
        installed: Vec<libc::c_int>,
        pipe: (libc::c_int, libc::c_int),
        thread: Option<JoinHandle<()>>,
    }

    impl Signals {
        /// Installs the handlers where the disposition is the default; `None` when the
        /// program handles (or ignores) both signals itself. `on_signal` writes the
        /// report, on the thread `hotpath-signals`, before the signal is sent again.
        pub(crate) fn install(on_signal: fn(i32)) -> Option<Signals> {
            let wanted: Vec<libc::c_int> = SIGNALS
                .into_iter()
                .filter(|&s| current(s) == libc::SIG_DFL)
                .collect();
            if wanted.is_empty() {
                return None;
            }
            let mut fds = [0 as libc::c_int; 2];
            // SAFETY: `fds` has room for the two descriptors pipe2 writes.
            if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
                return None;
            }
            let (r, w) = (fds[0], fds[1]);
            let thread = std::thread::Builder::new()
                .name("hotpath-signals".into())
                .spawn(move || {
                    crate::threads::register_profiler_thread();
                    // The report is written on the exiting path; the rest of this
                    // thread's work is the profiler's.
                    hotpath_core::internal(|| watch(r, on_signal));
                });
            let Ok(thread) = thread else {
                close(r);
                close(w);
                return None;
            };
            // SAFETY: getpid cannot fail.
            PID.store(unsafe { libc::getpid() }, Relaxed);
            PIPE_W.store(w, Relaxed);
            let mut installed = Vec::new();
            for sig in wanted {
                // SAFETY: zero is a valid `sigaction`; the fields set make it ours.
                let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
                sa.sa_sigaction = handler();
                sa.sa_flags = libc::SA_RESTART;
                // SAFETY: `sa.sa_mask` is a valid set to initialise.
                unsafe { libc::sigemptyset(&mut sa.sa_mask) };
                // SAFETY: `sa` is a complete action whose handler is async-signal-safe.
                if unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) } == 0 {
                    installed.push(sig);
                }
            }
            Some(Signals {
                installed,
                pipe: (r, w),
                thread: Some(thread),
            })
        }

        /// Puts back the default disposition where the handler is still the session's,
        /// and stops the thread.
        pub(crate) fn uninstall(mut self) {
            for &sig in &self.installed {
                if current(sig) == handler() {
                    set_default(sig);
                }
            }
            PIPE_W.store(-1, Relaxed);
            // Byte 0: stop.
            // SAFETY: one byte from a live local to the pipe this session opened.
            unsafe { libc::write(self.pipe.1, [0u8].as_ptr().cast(), 1) };
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
            close(self.pipe.0);
            close(self.pipe.1);
        }
    }

    /// Reads signal numbers from the pipe until byte 0: for each, `on_signal` (the
    /// report), then the signal again with its default disposition.
    fn watch(r: libc::c_int, on_signal: fn(i32)) {
        loop {
            let mut b = [0u8; 1];
            // SAFETY: `b` is writable for one byte; `r` is this session's pipe.
            let n = unsafe { libc::read(r, b.as_mut_ptr().cast(), 1) };
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            if n != 1 || b[0] == 0 {
                return;
            }
            let sig = libc::c_int::from(b[0]);
            on_signal(sig);
            set_default(sig);
            // SAFETY: kill has no memory effects; the process-directed signal ends the
            // process with its default disposition, as if no handler had run.
            unsafe {
                libc::kill(libc::getpid(), sig);
            }
        }
    }

    fn close(fd: libc::c_int) {
        // SAFETY: `fd` is a descriptor this module opened and still owns.
        unsafe { libc::close(fd) };
    }

    /// Writes all of `bytes` to file descriptor 1 without the standard output's lock.
    pub(crate) fn write_stdout(mut bytes: &[u8]) {
        while !bytes.is_empty() {
            // SAFETY: `bytes` is readable for its length.
            let n = unsafe { libc::write(1, bytes.as_ptr().cast(), bytes.len()) };
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            if n <= 0 {
                return;
            }
            bytes = &bytes[n as usize..];
        }
    }
}
