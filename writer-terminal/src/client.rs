//! The server's HTTP API as the terminal uses it (`shared/API.md`). The server's record wins
//! (rule 5.3): the terminal shows what the server answered, never a price or prize of its own.
//!
//! Answers are read as keno-api's types, the ones the server writes them from: a field the
//! terminal reads is one the server sends, checked by the compiler rather than at the counter.

use std::time::Duration;

use keno_api::staff::OVERRIDE_HEADER;
use keno_api::tickets::REQUEST_ID_HEADER;
use keno_api::RefusalCode;
use serde::de::DeserializeOwned;
use serde::Serialize;

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The server answered no: its machine code (a newer server's unknown code kept as text)
    /// and its words for the writer.
    #[error("{message}")]
    Refused {
        status: u16,
        code: RefusalCode,
        message: String,
    },
    /// No answer: the request may or may not have reached the server.
    #[error("the server could not be reached: {0}")]
    Network(String),
    /// The request never left: no connection could be made, so nothing was done.
    #[error("the server could not be reached: {0}")]
    NotSent(String),
}

/// Whether a failed call certainly never reached the server.
fn never_sent(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::HostNotFound | ureq::Error::BadUri(_) => true,
        ureq::Error::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::AddrNotAvailable
        ),
        _ => false,
    }
}

/// A refusal from an error answer's body: the server's `ErrorBody`, or (a proxy's page, say)
/// the status alone.
fn refused(status: u16, body: &[u8]) -> CallError {
    match serde_json::from_slice::<keno_api::ErrorBody>(body) {
        Ok(b) => CallError::Refused {
            status,
            code: b.error,
            message: b.message,
        },
        Err(_) => CallError::Refused {
            status,
            code: RefusalCode::Unknown("error".into()),
            message: format!("the server answered {status}"),
        },
    }
}

#[derive(Clone)]
pub struct Client {
    base: String,
    token: String,
    agent: ureq::Agent,
    /// A supervisor's grant the requests carry (`X-Keno-Override`): one action on one ticket.
    grant: Option<String>,
    /// The request id a payment, a cancellation or a cash-out carries (`X-Keno-Request-Id`):
    /// the server does it once and answers a retry with the first outcome.
    request_id: Option<String>,
}

/// How a sale (or a voucher's issue) ended: `T` is the ticket sold or the voucher issued.
#[derive(Debug)]
pub enum Sale<T> {
    /// Sold (issued) now.
    Sold(T),
    /// An earlier attempt with the same request id had sold it (a retry): the same ticket or
    /// voucher.
    AlreadySold(T),
}

impl Client {
    pub fn new(base: &str, token: &str, timeout: Duration) -> Client {
        Client {
            base: base.trim_end_matches('/').to_string(),
            token: token.to_string(),
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(timeout))
                // The server closes a connection idle for 5 s: one idle for 2 s is not reused, so a
                // request after a quiet spell never goes out on a connection as it closes.
                .max_idle_age(Duration::from_secs(2))
                .build()
                .into(),
            grant: None,
            request_id: None,
        }
    }

    /// The same client, its requests carrying a supervisor's grant (good once, for the action
    /// and ticket it was given for).
    pub fn with_grant(&self, grant: &str) -> Client {
        Client {
            grant: Some(grant.to_string()),
            ..self.clone()
        }
    }

    /// The bearer token, and the supervisor's grant and the request id when there are.
    fn headers<B>(&self, request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        let mut request = request.header("Authorization", format!("Bearer {}", self.token));
        if let Some(grant) = &self.grant {
            request = request.header(OVERRIDE_HEADER, grant);
        }
        if let Some(id) = &self.request_id {
            request = request.header(REQUEST_ID_HEADER, id);
        }
        request
    }

    /// Posts `body` under `request_id` until the server answers: a payment, a cancellation or
    /// a cash-out is done once however many tries reach it, and a retry is answered with the
    /// first outcome.
    pub fn post_once<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        request_id: &str,
        attempts: u32,
    ) -> Result<T, CallError> {
        let client = Client {
            request_id: Some(request_id.to_string()),
            ..self.clone()
        };
        match client.create(path, body, attempts)? {
            Sale::Sold(done) | Sale::AlreadySold(done) => Ok(done),
        }
    }

    /// Sends the request (a POST of `post`, else a GET) and reads the answer as `T`; the status
    /// tells a sale (201) from a retry's answer (200).
    fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        post: Option<&B>,
        path: &str,
    ) -> Result<(u16, T), CallError> {
        let url = format!("{}{path}", self.base);
        let response = match post {
            Some(body) => self.headers(self.agent.post(&url)).send_json(body),
            None => self.headers(self.agent.get(&url)).call(),
        };
        let mut response = response.map_err(|e| {
            if never_sent(&e) {
                CallError::NotSent(e.to_string())
            } else {
                CallError::Network(e.to_string())
            }
        })?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| CallError::Network(e.to_string()))?;
        if status >= 400 {
            return Err(refused(status, text.as_bytes()));
        }
        // An answer without a body (204, a sign-off) reads as `()`.
        let text = if text.is_empty() { "null".into() } else { text };
        // Not the server's answer (a proxy's page, say): nothing is known.
        let answer = serde_json::from_str(&text).map_err(|e| {
            CallError::Network(format!(
                "an answer that is not what was asked for ({status}): {e}"
            ))
        })?;
        Ok((status, answer))
    }

    pub fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, CallError> {
        self.call(None::<&()>, path).map(|(_, v)| v)
    }

    pub fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, CallError> {
        self.call(Some(body), path).map(|(_, v)| v)
    }

    /// A document the server makes (a claim form's PDF), as bytes.
    pub fn get_bytes(&self, path: &str) -> Result<Vec<u8>, CallError> {
        let url = format!("{}{path}", self.base);
        let mut response = self
            .headers(self.agent.get(&url))
            .call()
            .map_err(|e| CallError::Network(e.to_string()))?;
        let status = response.status().as_u16();
        let bytes = response
            .body_mut()
            .read_to_vec()
            .map_err(|e| CallError::Network(e.to_string()))?;
        if status >= 400 {
            return Err(refused(status, &bytes));
        }
        Ok(bytes)
    }

    /// Sells, retrying with the same request id when no answer came back: the server sells a
    /// request id once, so a retry either sells it or returns the ticket sold (200). A server
    /// error (5xx) changed nothing and is retried too; a refusal (4xx) is final.
    pub fn sell(
        &self,
        sale: &keno_api::tickets::SaleRequest,
        attempts: u32,
    ) -> Result<Sale<keno_api::tickets::SoldTicket>, CallError> {
        self.create("/api/v1/tickets", sale, attempts)
    }

    /// Issues a voucher (a deposit, or a winning ticket paid as a voucher), retried like a sale
    /// under the same request id: one voucher, however many tries.
    pub fn issue_voucher(
        &self,
        issue: &keno_api::vouchers::IssueRequest,
        attempts: u32,
    ) -> Result<Sale<keno_api::vouchers::Voucher>, CallError> {
        self.create("/api/v1/vouchers", issue, attempts)
    }

    /// Posts `body` (which carries a request id) until the server answers with what it made
    /// (201) or had made under that id (200).
    fn create<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        attempts: u32,
    ) -> Result<Sale<T>, CallError> {
        let mut pause = Duration::from_millis(200);
        let mut last = None;
        // Unless every attempt failed to connect, one may have made it.
        let mut maybe_sent = false;
        for attempt in 0..attempts.max(1) {
            if attempt > 0 {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_secs(3));
            }
            match self.call(Some(body), path) {
                Ok((201, made)) => return Ok(Sale::Sold(made)),
                Ok((200, made)) => return Ok(Sale::AlreadySold(made)),
                // Another success (or, above, an answer that does not read as what was made):
                // not the server's answer to this, so nothing is known.
                Ok((status, _)) => {
                    maybe_sent = true;
                    last = Some(CallError::Network(format!(
                        "an answer that is not what was asked for ({status})"
                    )));
                }
                // The system suspended (issue 33) did nothing and will do nothing until two
                // people resume it: final, unless an earlier try may have got through.
                Err(CallError::Refused {
                    status,
                    code,
                    message,
                }) if code == keno_api::Refusal::Suspended && !maybe_sent => {
                    return Err(CallError::Refused {
                        status,
                        code,
                        message,
                    })
                }
                Err(CallError::Refused { status, code, .. })
                    if status >= 500 || code == keno_api::Refusal::RequestInProgress =>
                {
                    maybe_sent = true;
                    last = Some(CallError::Network(format!(
                        "the server answered {status} ({code})"
                    )));
                }
                Err(e @ CallError::Refused { .. }) => return Err(e),
                Err(CallError::Network(m)) => {
                    maybe_sent = true;
                    last = Some(CallError::Network(m));
                }
                Err(e @ CallError::NotSent(_)) => last = Some(e),
            }
        }
        Err(match last {
            Some(CallError::NotSent(m)) if !maybe_sent => CallError::NotSent(m),
            Some(CallError::NotSent(m)) => CallError::Network(m),
            Some(e) => e,
            None => CallError::Network("no attempt made".into()),
        })
    }
}
