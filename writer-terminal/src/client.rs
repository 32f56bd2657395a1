//! The server's HTTP API as the terminal uses it (`shared/API.md`). The server's record wins
//! (rule 5.3): the terminal shows what the server answered, never a price or prize of its own.

use std::time::Duration;

use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The server answered no: its machine code and its words for the writer.
    #[error("{message}")]
    Refused {
        status: u16,
        code: String,
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

pub struct Client {
    base: String,
    token: String,
    agent: ureq::Agent,
}

/// How a sale (or a voucher's issue) ended.
#[derive(Debug)]
pub enum Sale {
    /// Sold (issued) now.
    Sold(Value),
    /// An earlier attempt with the same request id had sold it (a retry): the same ticket or
    /// voucher.
    AlreadySold(Value),
}

impl Client {
    pub fn new(base: &str, token: &str, timeout: Duration) -> Client {
        Client {
            base: base.trim_end_matches('/').to_string(),
            token: token.to_string(),
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(timeout))
                .build()
                .into(),
        }
    }

    fn call(&self, post: Option<&Value>, path: &str) -> Result<(u16, Value), CallError> {
        let url = format!("{}{path}", self.base);
        let auth = format!("Bearer {}", self.token);
        let response = match post {
            Some(body) => self
                .agent
                .post(&url)
                .header("Authorization", &auth)
                .send_json(body),
            None => self.agent.get(&url).header("Authorization", &auth).call(),
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
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        if status >= 400 {
            return Err(CallError::Refused {
                status,
                code: body["error"].as_str().unwrap_or("error").to_string(),
                message: body["message"]
                    .as_str()
                    .map_or_else(|| format!("the server answered {status}"), str::to_string),
            });
        }
        Ok((status, body))
    }

    pub fn get(&self, path: &str) -> Result<Value, CallError> {
        self.call(None, path).map(|(_, v)| v)
    }

    pub fn post(&self, path: &str, body: &Value) -> Result<Value, CallError> {
        self.call(Some(body), path).map(|(_, v)| v)
    }

    /// A document the server makes (a claim form's PDF), as bytes.
    pub fn get_bytes(&self, path: &str) -> Result<Vec<u8>, CallError> {
        let url = format!("{}{path}", self.base);
        let mut response = self
            .agent
            .get(&url)
            .header("Authorization", format!("Bearer {}", self.token))
            .call()
            .map_err(|e| CallError::Network(e.to_string()))?;
        let status = response.status().as_u16();
        let bytes = response
            .body_mut()
            .read_to_vec()
            .map_err(|e| CallError::Network(e.to_string()))?;
        if status >= 400 {
            let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            return Err(CallError::Refused {
                status,
                code: body["error"].as_str().unwrap_or("error").to_string(),
                message: body["message"]
                    .as_str()
                    .map_or_else(|| format!("the server answered {status}"), str::to_string),
            });
        }
        Ok(bytes)
    }

    /// Sells, retrying with the same request id when no answer came back: the server sells a
    /// request id once, so a retry either sells it or returns the ticket sold (200). A server
    /// error (5xx) changed nothing and is retried too; a refusal (4xx) is final.
    pub fn sell(&self, body: &Value, attempts: u32) -> Result<Sale, CallError> {
        self.create("/api/v1/tickets", "serial", body, attempts)
    }

    /// Issues a voucher (a deposit, or a winning ticket paid as a voucher), retried like a sale
    /// under the same request id: one voucher, however many tries.
    pub fn issue_voucher(&self, body: &Value, attempts: u32) -> Result<Sale, CallError> {
        self.create("/api/v1/vouchers", "code", body, attempts)
    }

    /// Posts `body` (which carries a request id) until the server answers with what it made
    /// (201) or had made under that id (200): an answer with the string field `key`.
    fn create(
        &self,
        path: &str,
        key: &str,
        body: &Value,
        attempts: u32,
    ) -> Result<Sale, CallError> {
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
                Ok((201, made)) if made[key].is_string() => return Ok(Sale::Sold(made)),
                Ok((200, made)) if made[key].is_string() => return Ok(Sale::AlreadySold(made)),
                // Not the server's answer (a proxy's page, say): nothing is known.
                Ok((status, _)) => {
                    maybe_sent = true;
                    last = Some(CallError::Network(format!(
                        "an answer that is not what was asked for ({status})"
                    )));
                }
                Err(CallError::Refused { status, code, .. })
                    if status >= 500 || code == "request_in_progress" =>
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
