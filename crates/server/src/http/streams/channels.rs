//! Where events go, so that each one wakes only the sockets that show it:
//! `public:T` (round state, results), `all:T` (staff: everything at T),
//! `player:T:P` (player P's own bets and chips at T).

use std::sync::Mutex;

use axum::extract::ws::Utf8Bytes;
use bytes::Bytes;
use tokio::sync::broadcast;

use crate::api::{EventView, Role};
use crate::casino::policy::{self, Act};
use crate::casino::Actor;
use crate::runtime::Publish;

/// Events buffered per subscriber before a slow one starts missing them.
pub const STREAM_BUFFER_EVENTS: usize = 4096;

#[derive(Default)]
pub struct Channels {
    senders: Mutex<foldhash::HashMap<String, broadcast::Sender<Utf8Bytes>>>,
    /// Where the number of channels is shown, once the server's metrics exist.
    counted: std::sync::OnceLock<prometheus_client::metrics::gauge::Gauge>,
}

impl Channels {
    /// Shows the number of channels in `gauge` from now on.
    pub fn count_in(&self, gauge: prometheus_client::metrics::gauge::Gauge) {
        let _ = self.counted.set(gauge);
        self.show(self.len());
    }

    fn show(&self, channels: usize) {
        if let Some(gauge) = self.counted.get() {
            gauge.set(channels as i64);
        }
    }

    pub fn subscribe(&self, key: String) -> broadcast::Receiver<Utf8Bytes> {
        let mut senders = self.senders.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let rx = senders
            .entry(key)
            .or_insert_with(|| broadcast::channel(STREAM_BUFFER_EVENTS).0)
            .subscribe();
        self.show(senders.len());
        rx
    }

    /// Frees `key`'s channel if no socket listens to it any more.
    pub fn release(&self, key: &str) {
        let mut senders = self.senders.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if senders.get(key).is_some_and(|sender| sender.receiver_count() == 0) {
            senders.remove(key);
            self.show(senders.len());
        }
    }

    /// How many channels exist: one per key some socket listens to.
    pub fn len(&self) -> usize {
        self.senders
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn send(&self, key: &str, text: &Utf8Bytes) {
        let senders = self.senders.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(sender) = senders.get(key) {
            // No one listening is fine: the journal has everything.
            let _ = sender.send(text.clone());
        }
    }
}

impl Publish for Channels {
    /// Sends each event to the channels that show it: its text from `texts`
    /// when the table wrote them, else serialised here.
    fn publish(&self, events: &[EventView], texts: &[Bytes]) {
        // Reused for every event: a round's settlement publishes thousands.
        let mut keys = [String::new(), String::new()];
        let rendered = texts.len() == events.len();
        for (i, e) in events.iter().enumerate() {
            let Some((table, player)) = e.audience() else {
                continue;
            };
            let text = if rendered {
                Utf8Bytes::try_from(texts[i].clone()).ok()
            } else {
                serde_json::to_string(e).ok().map(Utf8Bytes::from)
            };
            let Some(text) = text else {
                continue;
            };
            publish_keys(table, player, &mut keys);
            for key in &keys {
                self.send(key, &text);
            }
        }
    }
}

/// The channels an event about `player` (None: a public event) at `table` goes to,
/// written over `keys`, so that publishing allocates no key.
pub fn publish_keys(table: &str, player: Option<&str>, keys: &mut [String; 2]) {
    let [all, own] = keys;
    all.clear();
    all.push_str("all:");
    all.push_str(table);
    own.clear();
    match player {
        Some(p) => {
            own.push_str("player:");
            own.push_str(table);
            own.push(':');
            own.push_str(p);
        }
        None => {
            own.push_str("public:");
            own.push_str(table);
        }
    }
}

/// The channels a viewer's socket listens to: staff everything, a player the
/// public events and their own, a display board (no viewer) the public ones.
pub fn subscribe_keys(table: &str, viewer: Option<&Actor>) -> Vec<String> {
    match viewer {
        Some(a) if policy::allows(a.role, Act::WatchTable) => vec![format!("all:{table}")],
        Some(a) if a.role == Role::Player => vec![format!("public:{table}"), format!("player:{table}:{}", a.username)],
        _ => vec![format!("public:{table}")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A channel is made for its first listener and freed with its last:
    /// sockets that come and go leave nothing behind.
    #[test]
    fn a_channel_is_freed_with_its_last_listener() {
        let channels = Channels::default();
        let a = channels.subscribe("public:t1".into());
        let b = channels.subscribe("public:t1".into());
        let c = channels.subscribe("player:t1:p1".into());
        assert_eq!(channels.len(), 2);
        drop(a);
        channels.release("public:t1");
        assert_eq!(channels.len(), 2, "b still listens");
        drop((b, c));
        channels.release("public:t1");
        channels.release("player:t1:p1");
        assert!(channels.is_empty());
    }

    /// Whether the routing delivers an event about `player` to `viewer`.
    fn visible(player: Option<&str>, viewer: Option<&Actor>) -> bool {
        let mut published = [String::from("left over"), String::new()];
        publish_keys("t", player, &mut published);
        subscribe_keys("t", viewer).iter().any(|k| published.contains(k))
    }

    #[test]
    fn players_see_only_their_own_bets_on_the_stream() {
        let p1 = Actor::new("p1", Role::Player, "");
        let pit = Actor::new("pit", Role::PitSupervisor, "");
        // Public events (results, round state) reach everyone, a display board included.
        assert!(visible(None, None));
        assert!(visible(None, Some(&p1)));
        // A bet's settlement goes to its player and to staff, never to other players or the board.
        assert!(visible(Some("p1"), Some(&p1)));
        assert!(!visible(Some("p2"), Some(&p1)));
        assert!(!visible(Some("p1"), None));
        assert!(visible(Some("p2"), Some(&pit)));
    }
}
