//! Where events go, so that each one wakes only the sockets that show it:
//! `public:T` (round state, results), `all:T` (staff: everything at T),
//! `player:T:P` (player P's own bets, chips and money at T). Which event
//! goes where is decided in `api::audience`; this only follows it.

use std::borrow::Cow;
use std::sync::Mutex;

use axum::extract::ws::Utf8Bytes;
use bytes::Bytes;
use tokio::sync::broadcast;

use crate::api::{EventView, Viewer};
use crate::casino::policy;
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
    /// Sends each event to the channels that show it, in the form each shows
    /// ([`EventView::seen_by`]): `all:T` the staff's, `public:T` the
    /// public's, which every player at T sees too, and `player:T:P` a
    /// player's own form where the public sees nothing of it. An event's text
    /// comes from `texts` when the table wrote them, else it is serialised here.
    fn publish(&self, events: &[EventView], texts: &[Bytes]) {
        // Reused for every event: a round's settlement publishes thousands.
        let mut key = String::new();
        let rendered = texts.len() == events.len();
        for (i, e) in events.iter().enumerate() {
            let audience = e.audience();
            let Some(table) = audience.table() else {
                continue;
            };
            let mut whole = None;
            let mut text_of = |seen: &Cow<'_, EventView>| -> Option<Utf8Bytes> {
                match seen {
                    Cow::Borrowed(event) => whole
                        .get_or_insert_with(|| match rendered {
                            true => Utf8Bytes::try_from(texts[i].clone()).ok(),
                            false => serde_json::to_string(event).ok().map(Utf8Bytes::from),
                        })
                        .clone(),
                    Cow::Owned(part) => serde_json::to_string(part).ok().map(Utf8Bytes::from),
                }
            };
            let public = e.seen_by(Viewer::Public);
            let mut send = |key_parts: &[&str], seen: &Cow<'_, EventView>| {
                channel_key(&mut key, key_parts);
                if let Some(text) = text_of(seen) {
                    self.send(&key, &text);
                }
            };
            if let Some(seen) = e.seen_by(Viewer::Staff) {
                send(&["all", table], &seen);
            }
            if let Some(seen) = &public {
                send(&["public", table], seen);
            }
            // A player sees the public's form on `public:T`; their own only where there is none.
            if public.is_none() {
                for player in audience.players() {
                    if let Some(seen) = e.seen_by(Viewer::Player(player)) {
                        send(&["player", table, player], &seen);
                    }
                }
            }
        }
    }
}

/// Writes the channel key of `parts` (`all:T`, `public:T`, `player:T:P`)
/// over `key`, so that publishing allocates no key. A username has no `:`,
/// so no two (table, player) pairs share a key.
fn channel_key(key: &mut String, parts: &[&str]) {
    key.clear();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            key.push(':');
        }
        key.push_str(part);
    }
}

/// The channels a viewer's socket listens to: staff everything, a player the
/// public events and their own, a display board (no viewer) the public ones.
pub fn subscribe_keys(table: &str, viewer: Option<&Actor>) -> Vec<String> {
    match policy::viewer(viewer) {
        Viewer::Staff => vec![format!("all:{table}")],
        Viewer::Player(p) => vec![format!("public:{table}"), format!("player:{table}:{p}")],
        Viewer::Public => vec![format!("public:{table}")],
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
}
