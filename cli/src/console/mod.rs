//! `hotpath console`: a live terminal view of a running program's report, read from
//! its metrics server (`HOTPATH_METRICS_PORT`).
//!
//! A background thread fetches `/profiler_status` and `/report` every refresh and sends
//! the outcome to the UI thread, which stays responsive to keys in between. When the
//! program exits the console keeps the last good data and says from when it is.
//! The timing view also shows what each function did between refreshes (`Now`,
//! `Trend`), from the last reports kept by the `trend` module.
//!
//! The parts: [`App`] is the state (data, tab, view, sort, selection, inspect pane,
//! status), changed only by [`App::handle_key`] and [`App::update`]; [`ui::draw`]
//! draws it; [`run`] wires the terminal, the fetch thread and the event loop. Tests
//! drive an `App` and draw it on ratatui's `TestBackend`.
//!
//! Keys: `q`, Ctrl-C quit (Esc too, once the inspect pane is closed); Tab, Shift-Tab,
//! `1` to `3` switch tabs; ← → (`h` `l`) switch views; ↑ ↓ (`k` `j`), PgUp, PgDn, Home,
//! End (`g` `G`) move the selection; `s` / `S` sort by the next / previous column, `r`
//! reverses; Enter or `i` opens the inspect pane of the selected row.

mod app;
mod tables;
mod trend;
pub mod ui;

use std::io::{self, Stdout};
use std::sync::mpsc;
use std::sync::Once;
use std::time::{Duration, SystemTime};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::layout::Rect;
use ratatui::Terminal;

pub use app::{App, Control, FetchResult, Level, Snapshot, Sort, Status, Tab, View};
#[doc(hidden)]
pub use tables::row_count;

use crate::client::Client;

/// Where to connect and how often to refresh.
#[derive(Clone, Debug)]
pub struct Options {
    /// Host of the metrics server.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// Bearer token, when the program set `HOTPATH_METRICS_AUTH_TOKEN`.
    pub token: Option<String>,
    /// Time between refreshes.
    pub refresh: Duration,
}

/// How long the UI waits for a key before looking for new data and redrawing.
const TICK: Duration = Duration::from_millis(200);

/// Runs the console until `q`, Esc or Ctrl-C. The terminal is restored on return, on
/// error and on panic. Fails only when the terminal cannot be set up or written.
pub fn run(options: Options) -> io::Result<()> {
    let client = Client::new(&options.host, options.port, options.token.clone());
    let mut app = App::new(&options.host, options.port);
    let (results, inbox) = mpsc::channel();
    // Dropping `stop` (when this function returns) ends the fetch thread at its next
    // wait; a request in flight ends within the client's timeout.
    let (stop, stopped) = mpsc::channel::<()>();
    std::thread::Builder::new()
        .name("hotpath-console-fetch".into())
        .spawn(move || loop {
            if results.send(fetch(&client)).is_err() {
                return;
            }
            match stopped.recv_timeout(options.refresh) {
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => return,
            }
        })?;

    let mut terminal = TerminalGuard::enter()?;
    let result = event_loop(&mut terminal.terminal, &mut app, &inbox);
    drop(terminal);
    drop(stop);
    result
}

fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
    inbox: &mpsc::Receiver<FetchResult>,
) -> io::Result<()> {
    loop {
        while let Ok(result) = inbox.try_recv() {
            app.update(result);
        }
        app.tick(SystemTime::now());
        let size = terminal.size()?;
        app.set_page(ui::table_rows(
            Rect::new(0, 0, size.width, size.height),
            app,
        ));
        terminal.draw(|frame| ui::draw(frame, app))?;
        if event::poll(TICK)? {
            if let Event::Key(key) = event::read()? {
                if app.handle_key(key) == Control::Quit {
                    return Ok(());
                }
            }
        }
    }
}

/// One refresh, as the fetch thread makes it: `/profiler_status`, then `/report`; the
/// first error ends it.
pub fn fetch(client: &Client) -> FetchResult {
    let outcome = client.fetch_status().and_then(|status| {
        Ok(Snapshot {
            status,
            report: client.fetch_report()?,
        })
    });
    FetchResult {
        at: SystemTime::now(),
        outcome,
    }
}

/// The terminal in raw mode on the alternate screen; dropping it restores both and
/// shows the cursor.
struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    fn enter() -> io::Result<TerminalGuard> {
        install_panic_hook();
        terminal::enable_raw_mode()?;
        let guard = |terminal| TerminalGuard { terminal };
        // From here on, a failure restores what was set up.
        match execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)
            .and_then(|()| Terminal::new(CrosstermBackend::new(io::stdout())))
        {
            Ok(t) => Ok(guard(t)),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Raw mode off, alternate screen left, cursor shown; errors ignored (there is nothing
/// better to do with them while exiting).
fn restore() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(io::stdout(), terminal::LeaveAlternateScreen, cursor::Show);
}

/// A panic restores the terminal before the message is printed, so the message is
/// readable and the shell usable.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}
