//! `croupier serve` as a process of its own, as an operator runs it.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::{json, Value};

use crate::{Client, Socket};

/// How long a server may take to start listening: 200 tries, 25 ms apart.
const START_TRIES: u32 = 200;
const START_TRY_EVERY: Duration = Duration::from_millis(25);
/// The admin's password once [`Server::admin_token`] has changed the one-time one.
pub const ADMIN_PASSWORD: &str = "admin-password-1";
/// The operator's name the test casinos go by.
pub const OPERATOR: &str = "Test House";

/// libfaketime's library, from Debian's `faketime`.
const FAKETIME_LIBRARY: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// How long a test waits for a line the server is expected to print.
const LINE_TIMEOUT: Duration = Duration::from_secs(20);

/// A running `croupier serve --data DATA --listen 127.0.0.1:PORT`, its
/// standard output read line by line, and a client for it.
pub struct Server {
    child: Child,
    client: Client,
    lines: Receiver<String>,
}

/// A test that fails part way must not leave its server running: it would
/// hold the port and the test run's output open after the test has ended.
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `binary` (the tests pass `env!("CARGO_BIN_EXE_croupier")`, which
    /// only a test of the binary's own crate can name) serving `data` on
    /// `port`, and waits until it listens.
    pub fn start(binary: &str, data: &Path, port: u16) -> Server {
        Server::start_with(binary, data, port, &[])
    }

    /// [`Server::start`], with more of `serve`'s options (`--connections-max 10`...).
    pub fn start_with(binary: &str, data: &Path, port: u16, options: &[&str]) -> Server {
        Server::start_logging(binary, data, port, options, Stdio::inherit())
    }

    /// [`Server::start_with`], its log (standard error) written to `log`
    /// (a test that reads what the server logged), not the test's own.
    pub fn start_with_log(binary: &str, data: &Path, port: u16, options: &[&str], log: &Path) -> Server {
        let file = std::fs::File::create(log).expect("the log's file");
        Server::start_logging(binary, data, port, options, Stdio::from(file))
    }

    /// [`Server::start_with`], its clock `offset` ahead of the machine's (`+1d`,
    /// `+25h`...), as libfaketime moves it: the wall clock only, so that
    /// its timers keep the machine's pace. A test of what a gaming day's end
    /// does starts the server again a day later. Needs Debian's `faketime`
    /// (`scripts/setup.sh` installs it).
    pub fn start_later(binary: &str, data: &Path, port: u16, options: &[&str], offset: &str) -> Server {
        Server::start_faked(binary, data, port, options, offset)
    }

    /// [`Server::start_with`], its wall clock starting at `utc` (`2026-03-08
    /// 12:30:00`, a UTC time) and running on from there: a test of a gaming
    /// day in a time zone of its own, across a change of daylight saving time.
    pub fn start_at(binary: &str, data: &Path, port: u16, options: &[&str], utc: &str) -> Server {
        Server::start_faked(binary, data, port, options, &format!("@{utc}"))
    }

    fn start_faked(binary: &str, data: &Path, port: u16, options: &[&str], faketime: &str) -> Server {
        assert!(
            Path::new(FAKETIME_LIBRARY).exists(),
            "{FAKETIME_LIBRARY} is missing: scripts/setup.sh installs Debian's faketime"
        );
        let env = [
            ("LD_PRELOAD", FAKETIME_LIBRARY),
            ("FAKETIME", faketime),
            ("FAKETIME_DONT_FAKE_MONOTONIC", "1"),
            ("FAKETIME_NO_CACHE", "1"),
            // libfaketime reads an absolute time in the process's own zone.
            ("TZ", "UTC"),
        ];
        Server::start_inner(binary, data, port, options, Stdio::inherit(), &env)
    }

    fn start_logging(binary: &str, data: &Path, port: u16, options: &[&str], log: Stdio) -> Server {
        Server::start_inner(binary, data, port, options, log, &[])
    }

    fn start_inner(binary: &str, data: &Path, port: u16, options: &[&str], log: Stdio, env: &[(&str, &str)]) -> Server {
        let address = format!("127.0.0.1:{port}");
        let mut child = Command::new(binary)
            .args(["serve", "--data", data.to_str().expect("path"), "--listen", &address])
            .args(options)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("server starts");
        let stdout = child.stdout.take().expect("stdout");
        // The server prints what an operator must see (the admin's one-time
        // password, what recovery did); a thread hands each line to the test.
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let server = Server {
            child,
            client: Client::new(&address),
            lines,
        };
        let listening = (0..START_TRIES).any(|_| {
            let up = TcpStream::connect(&address).is_ok();
            if !up {
                std::thread::sleep(START_TRY_EVERY);
            }
            up
        });
        assert!(listening, "the server did not start listening");
        server
    }

    /// The server's `host:port`.
    pub fn address(&self) -> &str {
        self.client.address()
    }

    /// A client of the server's own, for a thread of the test.
    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server as a power cut would (`kill -9`), and waits until it is gone.
    pub fn kill(&mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("dead");
    }

    /// Waits up to `within` for the server to end by itself: its exit status, if it did.
    pub fn exited_within(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let until = std::time::Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if std::time::Instant::now() > until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// What the server answers on `/healthz` within two seconds: its status
    /// and the whole answer; `None` if it does not answer in that time (gone, or held up).
    pub fn health(&self) -> Option<(u16, String)> {
        use std::io::{Read, Write};
        let mut stream = TcpStream::connect(self.address()).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: croupier\r\nConnection: close\r\n\r\n")
            .ok()?;
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        let status = answer.split(' ').nth(1)?.parse().ok()?;
        Some((status, answer))
    }

    /// Sends the server `signal` (`STOP`, `CONT`...), as `kill -SIGNAL` does.
    pub fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([format!("-{signal}"), self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill -{signal} {}", self.pid());
    }

    /// The one-time admin password a first run prints.
    pub fn admin_password(&self) -> String {
        let line = self.wait_line("croupier: first run");
        line.split("password ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .expect("admin password")
            .to_string()
    }

    /// The next line the server prints that starts with `prefix`; the lines before it are passed over.
    pub fn wait_line(&self, prefix: &str) -> String {
        loop {
            let line = self.lines.recv_timeout(LINE_TIMEOUT).expect("a line from the server");
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    /// One HTTP request: see [`Client::http`].
    pub fn http(&self, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> (u16, Value) {
        self.client.http(method, path, token, body)
    }

    /// One HTTP request, with its answer's headers: see [`Client::answer`].
    pub fn answer(&self, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> crate::Answer {
        self.client.answer(method, path, token, body)
    }

    /// One HTTP request, with an error where the server is gone: see [`Client::try_http`].
    pub fn try_http(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<(u16, Value), ureq::Error> {
        self.client.try_http(method, path, token, body)
    }

    /// Signs in as the admin a first run made, changes its one-time password
    /// to [`ADMIN_PASSWORD`] as the server demands first, names the casino's
    /// operator [`OPERATOR`] (Maryland ch.1 G(1): a Maryland table opens
    /// only then), and gives the session's token.
    pub fn admin_token(&self) -> String {
        let token = self.admin_token_unnamed();
        self.ask(&token, json!({"op": "name_operator", "name": OPERATOR}));
        token
    }

    /// [`Server::admin_token`] without naming the operator.
    pub fn admin_token_unnamed(&self) -> String {
        let password = self.admin_password();
        let token = self.login("admin", &password);
        self.ask(
            &token,
            json!({"op": "change_password", "password": password, "new_password": ADMIN_PASSWORD}),
        );
        token
    }

    /// Signs in: the session's token.
    pub fn login(&self, username: &str, password: &str) -> String {
        let (status, body) = self.http(
            "POST",
            "/api/login",
            None,
            Some(&json!({"username": username, "password": password})),
        );
        assert_eq!(status, 200, "{username}: {body}");
        body["token"].as_str().expect("token").to_string()
    }

    /// A request at `/api/requests` that must succeed: its answer.
    pub fn ask(&self, token: &str, request: Value) -> Value {
        let (status, body) = self.http("POST", "/api/requests", Some(token), Some(&request));
        assert_eq!(status, 200, "{request}: {body}");
        body
    }

    /// A request at `/api/requests` that is refused: its status, code and message.
    pub fn refused(&self, token: &str, request: Value) -> (u16, String, String) {
        let (status, body) = self.http("POST", "/api/requests", Some(token), Some(&request));
        (
            status,
            body["error"].as_str().unwrap_or_default().to_string(),
            body["message"].as_str().unwrap_or_default().to_string(),
        )
    }

    /// The admin adds a cashier, a dealer, a pit supervisor and players p1 and p2, each
    /// with the password `NAME-password-1`.
    pub fn add_staff_and_players(&self, admin: &str) {
        self.add_users(
            admin,
            &[
                ("cashier", "cashier"),
                ("dealer", "dealer"),
                ("pit", "pit_supervisor"),
                ("p1", "player"),
                ("p2", "player"),
            ],
        );
    }

    /// A first run's admin (password changed) adds the staff and players p1
    /// and p2 ([`Server::add_staff_and_players`]), and each signs in:
    /// [admin, cashier, dealer, pit, p1, p2].
    pub fn staff_and_players(&self) -> [String; 6] {
        let admin = self.admin_token();
        self.add_staff_and_players(&admin);
        [
            admin,
            self.login("cashier", "cashier-password-1"),
            self.login("dealer", "dealer-password-1"),
            self.login("pit", "pit-password-1"),
            self.login("p1", "p1-password-1"),
            self.login("p2", "p2-password-1"),
        ]
    }

    /// The admin adds each (name, role), with the password `NAME-password-1`;
    /// staff with the licence number `L-NAME` on record (Colorado 2212(5),
    /// Maryland ch.2 E(6): only they inspect or adjust there).
    pub fn add_users(&self, admin: &str, users: &[(&str, &str)]) {
        for (name, role) in users {
            let mut user =
                json!({"op": "create_user", "username": name, "role": role, "password": format!("{name}-password-1")});
            if *role != "player" {
                user["licence"] = json!(format!("L-{name}"));
            }
            self.ask(admin, user);
        }
    }

    /// The admin makes `table` a dealer's table of the european-casino rules,
    /// played in the casino's dollars (a house plays them in its own currency).
    pub fn create_european_table(&self, admin: &str, table: &str) {
        self.ask(
            admin,
            json!({"op": "create_table", "table": table,
                   "profile_text": include_str!("../../../profiles/european-casino.toml").replace("currency = \"EUR\"", "currency = \"USD\""),
                   "wheel": "single-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "dealer"}),
        );
    }

    /// `create_table` for an RNG table of the Maryland rules on a double-zero
    /// wheel with the Bonus Spin Xtreme progressive (Maryland ch.3 F(16)).
    pub fn bsx_table(table: &str) -> Value {
        json!({"op": "create_table", "table": table, "profile_text": include_str!("../../../profiles/maryland.toml"),
               "wheel": "double-zero", "in_prison": false, "betting_window_ms": 60000, "outcome": "rng",
               "bonus_text": include_str!("../../../profiles/bonus/bonus-spin-xtreme.toml")})
    }

    /// The pit logs a passing inspection and the dealer opens the table; a
    /// table whose sign must show its limits first (Maryland ch.1 G(3)) has
    /// the pit post them ([`Server::post_limits`]).
    pub fn inspect_and_open(&self, pit: &str, dealer: &str, table: &str) {
        self.ask(pit, json!({"op": "inspect", "table": table, "no_magnet_or_contrivance": true, "wheel_level_and_rotating_freely": true, "parts_secure": true, "ball_non_magnetic": true, "layout_and_signage_comply": true}));
        let open = json!({"op": "open_table", "table": table});
        let (status, body) = self.http("POST", "/api/requests", Some(dealer), Some(&open));
        if body["error"] == "limits_not_posted" {
            self.post_limits(pit, table);
            self.ask(dealer, open);
        } else {
            assert_eq!(status, 200, "{open}: {body}");
        }
    }

    /// The pit posts a limit of 0.01 up to the largest stake on each kind of
    /// bet at `table` with none, keeping those posted: a sign that bounds
    /// nothing a test bets. A composite bet is limited by its parts.
    pub fn post_limits(&self, pit: &str, table: &str) {
        let (status, layout) = self.http("GET", &format!("/api/public/tables/{table}/layout"), None, None);
        assert_eq!(status, 200, "{table}'s layout: {layout}");
        let limits: Vec<Value> = layout["kinds"]
            .as_array()
            .expect("kinds")
            .iter()
            .filter(|k| !matches!(k["kind"].as_str(), Some("neighbours" | "complete")))
            .map(|k| {
                json!({"kind": k["kind"], "min": k["min"].as_u64().unwrap_or(1),
                       "max": k["max"].as_u64().unwrap_or(1_000_000_000)})
            })
            .collect();
        self.ask(pit, json!({"op": "set_limits", "table": table, "limits": limits}));
    }

    /// The cashier cashes in `cash` for `player`, who buys in for `chips` at `table` (chips of 1.00).
    pub fn seat(&self, cashier: &str, (player, token): (&str, &str), table: &str, cash: u64, chips: u64) {
        self.ask(
            cashier,
            json!({"op": "cash_in", "id": format!("cash-{player}-{table}"), "player": player, "amount": cash}),
        );
        self.ask(
            token,
            json!({"op": "buy_in", "id": format!("buy-{player}-{table}"), "table": table, "amount": chips, "chip_value": 100}),
        );
    }

    /// Opens `table`'s stream, signed in with `token` or as a display board without one.
    pub fn subscribe(&self, table: &str, token: Option<&str>) -> Socket {
        Socket::connect(self.address(), table, token)
    }
}
