//! A socket's place in its table's channels: a wait that keeps its place
//! in the channel's list of waiters from one pass of the socket's loop to
//! the next, and a channel polled again only once it has woken the socket.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use serde_json::json;
use tokio::sync::broadcast;

/// What a socket that fell behind its table's stream is told instead of the events it lost.
pub fn missed_notice(missed: u64) -> Utf8Bytes {
    Utf8Bytes::from(json!({"type": "missed", "events": missed}).to_string())
}

/// A table channel's next message, waited for by one future that keeps its
/// place in the channel's list of waiters from one pass of a socket's loop to
/// the next: a `recv` made afresh on every pass (every bet and every reply)
/// joined that list and left it again each time, under the channel's lock.
/// It hands the receiver back with the message, for the wait after it.
type NextEvent = std::pin::Pin<
    Box<
        dyn std::future::Future<
                Output = (
                    Result<Utf8Bytes, broadcast::error::RecvError>,
                    broadcast::Receiver<Utf8Bytes>,
                ),
            > + Send,
    >,
>;

fn next_event(mut rx: broadcast::Receiver<Utf8Bytes>) -> NextEvent {
    Box::pin(async move {
        let received = rx.recv().await;
        (received, rx)
    })
}

/// Set by the channel when it wakes a socket's wait, before it wakes the socket's task.
struct Woken {
    flag: AtomicBool,
    task: std::task::Waker,
}

impl std::task::Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.flag.store(true, Ordering::SeqCst);
        self.task.wake_by_ref();
    }
}

/// A socket's place in one of its table's channels. Each pass of the
/// socket's loop polls only the channels that may have a message: a poll
/// that finds none takes the channel's lock, and `public:T` is shared by
/// every socket at the table, so polling both channels on every pass (every
/// bet and every reply) cost more than their messages did. A channel that
/// answered "nothing yet" is polled again once it has woken the socket.
pub struct Following {
    wait: NextEvent,
    /// The waker the wait is registered with: the task's, behind a flag.
    woken: Option<(Arc<Woken>, std::task::Waker)>,
    /// The last poll found nothing, and the channel has not woken the wait since.
    quiet: bool,
}

impl Following {
    pub fn new(rx: broadcast::Receiver<Utf8Bytes>) -> Following {
        Following {
            wait: next_event(rx),
            woken: None,
            quiet: false,
        }
    }

    /// The channel's next message for the socket (a lag becomes a `missed`
    /// notice), or `Ready(None)` once the channel has closed, which it says
    /// again when next asked. A channel that had nothing last time and has
    /// not woken the task since is not polled: `Pending` at once, and the
    /// channel's wake, registered by that last poll, wakes the task. (It
    /// cannot be a `select!` precondition, which is read once per `select!`:
    /// a quiet channel's branch would stay off when the channel woke it.)
    pub fn poll_event(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Utf8Bytes>> {
        use std::task::Poll;
        let (woken, waker) = match &mut self.woken {
            Some((w, waker)) if w.task.will_wake(cx.waker()) => {
                if self.quiet && !w.flag.load(Ordering::SeqCst) {
                    return Poll::Pending;
                }
                (&*w, &*waker)
            }
            slot => {
                let w = Arc::new(Woken {
                    flag: AtomicBool::new(false),
                    task: cx.waker().clone(),
                });
                let waker = std::task::Waker::from(w.clone());
                let (w, waker) = slot.insert((w, waker));
                (&*w, &*waker)
            }
        };
        // Cleared before the poll: a message sent after it either is seen
        // by the poll or wakes the wait it registers.
        woken.flag.store(false, Ordering::SeqCst);
        let polled = self.wait.as_mut().poll(&mut std::task::Context::from_waker(waker));
        let Poll::Ready((received, rx)) = polled else {
            self.quiet = true;
            return Poll::Pending;
        };
        self.quiet = false;
        self.wait = next_event(rx);
        Poll::Ready(match received {
            Ok(text) => Some(text),
            Err(broadcast::error::RecvError::Lagged(missed)) => Some(missed_notice(missed)),
            Err(broadcast::error::RecvError::Closed) => None,
        })
    }
}

/// A channel's message that is already waiting, if any, without waiting.
pub async fn waiting(following: &mut Following) -> Option<Utf8Bytes> {
    std::future::poll_fn(|cx| match following.poll_event(cx) {
        std::task::Poll::Ready(text) => std::task::Poll::Ready(text),
        std::task::Poll::Pending => std::task::Poll::Ready(None),
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A socket's loop polls a channel only once the channel has woken it
    /// (`Following`), and still takes every message once and in order. First
    /// one task publishes while another wakes the loop all the time, as
    /// replies do, and the loop drains the channel between wakes as a socket
    /// does; then the other task stops and the channel alone wakes the loop,
    /// as at a display board or a terminal that is not betting. A wake-up
    /// missed stalls the loop, which the time limit turns into a failure.
    #[test]
    fn a_socket_following_its_channel_takes_every_message_once_in_order() {
        const BUSY: u64 = 20_000;
        const IDLE: u64 = 50;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let (tx, rx) = broadcast::channel::<Utf8Bytes>((BUSY + IDLE) as usize);
            let (ping_tx, mut pings) = tokio::sync::mpsc::channel::<()>(64);
            let (busy_done, pings_stop) = tokio::sync::oneshot::channel::<()>();
            let (pings_stopped, idle_start) = tokio::sync::oneshot::channel::<()>();
            let publisher = tokio::spawn(async move {
                for i in 0..BUSY {
                    let _ = tx.send(Utf8Bytes::from(i.to_string()));
                    if i % 7 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
                let _ = busy_done.send(());
                let _ = idle_start.await;
                for i in BUSY..BUSY + IDLE {
                    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                    let _ = tx.send(Utf8Bytes::from(i.to_string()));
                }
                // Dropping the sender closes the channel: the loop's end.
            });
            let pinger = tokio::spawn(async move {
                let mut stop = pings_stop;
                loop {
                    tokio::select! {
                        _ = &mut stop => break,
                        sent = ping_tx.send(()) => if sent.is_err() { break },
                    }
                    tokio::task::yield_now().await;
                }
                drop(ping_tx);
                let _ = pings_stopped.send(());
            });
            let mut following = Following::new(rx);
            let taken = tokio::time::timeout(std::time::Duration::from_secs(60), async {
                let mut taken = 0u64;
                let mut take = |text: Utf8Bytes| {
                    assert_eq!(text.as_str(), taken.to_string(), "a message out of order or twice");
                    taken += 1;
                };
                // As a socket's loop: wait for the channel or a wake from
                // elsewhere, then send what is already waiting with it.
                loop {
                    let text = tokio::select! {
                        text = std::future::poll_fn(|cx| following.poll_event(cx)) => text,
                        Some(()) = pings.recv() => continue,
                    };
                    let Some(text) = text else { break };
                    take(text);
                    while let Some(text) = waiting(&mut following).await {
                        take(text);
                    }
                }
                taken
            })
            .await
            .expect("the loop stalled: a wake-up from the channel was missed");
            pinger.await.expect("pinger");
            publisher.await.expect("publisher");
            assert_eq!(taken, BUSY + IDLE);
        });
    }
}
