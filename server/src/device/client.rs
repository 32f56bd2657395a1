//! The server's HTTP API as a ball device or a supervisor's console uses it.

use std::time::Duration;

use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The server answered no: its machine code and its words.
    #[error("{code}: {message}")]
    Refused {
        status: u16,
        code: String,
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
                .build()
                .into(),
        }
    }

    pub fn get(&self, path: &str) -> Result<Value, CallError> {
        self.call(None, path)
    }

    pub fn post(&self, path: &str, body: &Value) -> Result<Value, CallError> {
        self.call(Some(body), path)
    }

    /// Game `number` as the server records it.
    pub fn game(&self, number: i64) -> Result<Value, CallError> {
        self.get(&format!("/api/v1/games/{number}"))
    }

    fn call(&self, post: Option<&Value>, path: &str) -> Result<Value, CallError> {
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
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        if status < 300 {
            return Ok(body);
        }
        Err(CallError::Refused {
            status,
            code: body["error"].as_str().unwrap_or("error").to_string(),
            message: body["message"]
                .as_str()
                .map_or_else(|| body.to_string(), str::to_string),
        })
    }
}

/// The lowest-numbered game waiting for a draw (closed, being drawn, or after a void draw).
pub fn game_awaiting_draw(api: &Api) -> Result<Option<Value>, CallError> {
    let games = api.get("/api/v1/games?state=closed,drawing,void&limit=1")?;
    Ok(games.as_array().and_then(|g| g.first()).cloned())
}

/// The numbers of a game's draw, in the order drawn.
pub fn drawn(game: &Value) -> Vec<u8> {
    game["drawn"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_u64())
        .map(|n| n as u8)
        .collect()
}

/// The number a game's draw holds at `position` (from 1), if it is that far.
pub fn ball_at(game: &Value, position: usize) -> Option<i64> {
    drawn(game).get(position - 1).copied().map(i64::from)
}
