//! An export sent to its HTTP client as it is read: a blocking task reads the snapshot and
//! writes the rows into a bounded channel, which the response drains. A slow client slows the
//! reading and never fills the server's memory; a client that has gone ends the reading (the
//! next chunk finds no one to take it), and its snapshot with it.

use std::io::{self, Write};

use actix_web::web::Bytes;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;

use crate::error::{DomainResult, Failure};

/// Bytes gathered before they are sent as one chunk.
const CHUNK: usize = 64 * 1024;

/// Chunks on their way to the client, at most this many at a time.
const IN_FLIGHT: usize = 8;

/// The body's bytes, as the download's task writes them.
pub type Body = ReceiverStream<io::Result<Bytes>>;

/// The writer whose bytes become the response's body.
pub struct Chunks {
    tx: mpsc::Sender<io::Result<Bytes>>,
    buf: Vec<u8>,
}

impl Chunks {
    fn send(&mut self) -> io::Result<()> {
        let chunk = Bytes::from(std::mem::take(&mut self.buf));
        self.tx
            .blocking_send(Ok(chunk))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client has gone"))
    }
}

impl Write for Chunks {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            self.send()
        }
    }
}

/// Whether the download has begun: until then a failure is the request's answer (its status
/// and code); after, the body is cut short.
pub struct Started(Option<oneshot::Sender<DomainResult<()>>>);

impl Started {
    /// The answer is 200 from here on: what could be refused has been checked.
    pub fn now(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(Ok(()));
        }
    }
}

/// Runs `work` on a blocking thread, writing the body into [`Chunks`]; the body once `work`
/// has said [`Started::now`] (or finished), or its failure before that.
pub async fn stream<F>(work: F) -> DomainResult<Body>
where
    F: FnOnce(&mut Started, Chunks) -> DomainResult<()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel(IN_FLIGHT);
    let (start_tx, start_rx) = oneshot::channel();
    let cut = tx.clone();
    actix_web::rt::task::spawn_blocking(move || {
        let mut started = Started(Some(start_tx));
        let done = work(
            &mut started,
            Chunks {
                tx,
                buf: Vec::new(),
            },
        );
        match (started.0.take(), done) {
            (Some(before), done) => {
                let _ = before.send(done);
            }
            (None, Ok(())) => {}
            (None, Err(e)) => {
                tracing::error!(error = %e, "an export failed while it was sent: the download is cut short");
                // An error in the body ends the response without its last chunk: the client
                // sees a broken download, never a short file that looks whole.
                let _ = cut.blocking_send(Err(io::Error::other(e.to_string())));
            }
        }
    });
    start_rx.await.map_err(|_| {
        Failure::Internal(anyhow::anyhow!("the export's task ended without an answer"))
    })??;
    Ok(ReceiverStream::new(rx))
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use keno_api::Refusal;

    async fn collect(mut body: Body) -> (Vec<u8>, Option<io::Error>) {
        let mut bytes = Vec::new();
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(chunk) => bytes.extend_from_slice(&chunk),
                Err(e) => return (bytes, Some(e)),
            }
        }
        (bytes, None)
    }

    /// Many chunks, more than the channel holds at once, arrive whole and in order.
    #[actix_web::test]
    async fn a_long_body_arrives_whole_in_chunks() {
        let line: Vec<u8> = (0..=255u8).collect();
        let body = stream(move |started, mut out| {
            started.now();
            for _ in 0..4096 {
                out.write_all(&line).map_err(anyhow::Error::from)?;
            }
            out.flush().map_err(anyhow::Error::from)?;
            Ok(())
        })
        .await
        .unwrap();
        let (bytes, error) = collect(body).await;
        assert!(error.is_none());
        assert_eq!(bytes.len(), 4096 * 256);
        assert!(bytes
            .chunks(256)
            .all(|c| c == (0..=255u8).collect::<Vec<_>>()));
    }

    /// Refused before it starts: the request's answer; failed after: the body is cut short.
    #[actix_web::test]
    async fn a_failure_before_the_start_is_the_answer_and_after_it_cuts_the_body() {
        let refused = stream(|_, _| Err(Failure::refuse(Refusal::InvalidRange, "no range"))).await;
        assert_eq!(
            refused.err().and_then(|f| f.refusal()),
            Some(Refusal::InvalidRange)
        );
        let body = stream(|started, mut out| {
            started.now();
            out.write_all(b"game,keno_day\n")
                .map_err(anyhow::Error::from)?;
            out.flush().map_err(anyhow::Error::from)?;
            Err(Failure::Internal(anyhow::anyhow!("the database went away")))
        })
        .await
        .unwrap();
        let (bytes, error) = collect(body).await;
        assert_eq!(bytes, b"game,keno_day\n");
        assert!(error.is_some());
    }

    /// A client that has gone ends the reading: the next chunk finds no one to take it.
    #[actix_web::test]
    async fn a_client_gone_ends_the_reading() {
        let (ended_tx, ended_rx) = std::sync::mpsc::channel();
        let body = stream(move |started, mut out| {
            started.now();
            let chunk = vec![b'x'; CHUNK];
            let mut sent = 0;
            let gone = loop {
                if let Err(e) = out.write_all(&chunk) {
                    break e;
                }
                sent += 1;
                assert!(sent < 10_000, "still writing to a client long gone");
            };
            ended_tx.send(gone.kind()).unwrap();
            Ok(())
        })
        .await
        .unwrap();
        drop(body);
        let kind = ended_rx.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(kind, Ok(io::ErrorKind::BrokenPipe));
    }
}
