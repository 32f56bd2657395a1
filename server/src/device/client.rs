//! The server's HTTP API as a ball device or a supervisor's console uses it: requests and
//! answers are keno-api's types, the ones the server itself reads and writes.

use std::time::Duration;

use keno_api::games::Game;
use keno_api::RefusalCode;
use serde::de::DeserializeOwned;
use serde::Serialize;

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The server answered no: its machine code (a newer server's unknown code kept as text)
    /// and its words.
    #[error("{code}: {message}")]
    Refused {
        status: u16,
        code: RefusalCode,
        message: String,
    },
    /// No answer: the request may or may not have reached the server.
    #[error("the server could not be reached: {0}")]
    Network(String),
}

pub struct Api {
    base: String,
    token: String,
    agent: ureq::Agent,
}

impl Api {
    pub fn new(base: &str, token: &str) -> Api {
        Api {
            base: base.trim_end_matches('/').to_string(),
            token: token.to_string(),
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(10)))
                // The server closes a connection idle for 5 s: one idle for 2 s is not reused, so a
                // request after a quiet spell never goes out on a connection as it closes.
                .max_idle_age(Duration::from_secs(2))
                .build()
                .into(),
        }
    }

    pub fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, CallError> {
        self.call(None::<&()>, path)
    }

    pub fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, CallError> {
        self.call(Some(body), path)
    }

    /// Game `number` as the server records it.
    pub fn game(&self, number: i64) -> Result<Game, CallError> {
        self.get(&format!("/api/v1/games/{number}"))
    }

    fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        post: Option<&B>,
        path: &str,
    ) -> Result<T, CallError> {
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
        let mut response = response.map_err(|e| CallError::Network(e.to_string()))?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| CallError::Network(e.to_string()))?;
        if status >= 300 {
            return Err(refused(status, text));
        }
        // Not the server's answer (a proxy's page, say): whether the request landed is unknown,
        // as when no answer came.
        serde_json::from_str(&text).map_err(|e| {
            CallError::Network(format!(
                "an answer that is not what was asked for ({status}): {e}"
            ))
        })
    }
}

/// A refusal from an error answer: the server's `ErrorBody`, or (a proxy's page, say) the text
/// of the answer as its message.
fn refused(status: u16, text: String) -> CallError {
    match serde_json::from_str::<keno_api::ErrorBody>(&text) {
        Ok(body) => CallError::Refused {
            status,
            code: body.error,
            message: body.message,
        },
        Err(_) => CallError::Refused {
            status,
            code: RefusalCode::Unknown("error".into()),
            message: text,
        },
    }
}

/// The lowest-numbered game waiting for a draw (closed, being drawn, or after a void draw).
pub fn game_awaiting_draw(api: &Api) -> Result<Option<Game>, CallError> {
    let games: Vec<Game> = api.get("/api/v1/games?state=closed,drawing,void&limit=1")?;
    Ok(games.into_iter().next())
}
