//! What the command-line commands ask at the counter when the server wants more than the
//! writer alone: a supervisor's approval (`other_site`, `approval_required`) and a hand-pay's
//! record (`hand_pay_required`). Given as options, they are used as given (a script); else,
//! at a terminal, the supervisor and the writer are asked; else the server's refusal stands
//! (exit 1).

use clap::Args;
use keno_api::staff::{HandPay, OverrideAction, OverrideGrant};

use crate::approval::{self, Supervisor};
use crate::client::{CallError, Client};
use crate::{prompt, Failure};

/// A supervisor approving at this counter, for a script (`--supervisor` and the rest); at a
/// terminal the supervisor is asked instead.
#[derive(Args, Clone, Debug, Default)]
pub struct ApprovalArgs {
    /// When the server asks for a supervisor's approval (another site's ticket, a payment above
    /// the writer's payout limit): the supervisor's staff ID.
    #[arg(long, requires_all = ["supervisor_password_env", "supervisor_code", "reason"])]
    pub supervisor: Option<String>,
    /// The environment variable that holds the supervisor's password (never on the command
    /// line, where `ps` shows it).
    #[arg(long, value_name = "VAR")]
    pub supervisor_password_env: Option<String>,
    /// The 6-digit code the supervisor's authenticator shows now.
    #[arg(long, value_name = "CODE")]
    pub supervisor_code: Option<String>,
    /// Why the supervisor approves: recorded with both names.
    #[arg(long, value_name = "WHY")]
    pub reason: Option<String>,
}

/// A major prize's hand-pay (rule 1(h)): who takes it and the identity document shown; asked at
/// a terminal when the server wants it and these are not given.
#[derive(Args, Clone, Debug, Default)]
pub struct HandPayArgs {
    /// The claimant's name.
    #[arg(long, requires_all = ["id_kind", "id_number"])]
    pub claimant: Option<String>,
    /// The identity document shown: "driver licence", "passport".
    #[arg(long, requires = "claimant")]
    pub id_kind: Option<String>,
    /// The document's number.
    #[arg(long, requires = "claimant")]
    pub id_number: Option<String>,
    /// The cheque's number, when a major prize is paid by cheque (rule 12.2).
    #[arg(long, requires = "claimant")]
    pub cheque_number: Option<String>,
}

impl HandPayArgs {
    pub fn given(&self) -> Option<HandPay> {
        let claimant = self.claimant.as_deref()?;
        Some(approval::hand_pay(
            claimant,
            self.id_kind.as_deref().unwrap_or_default(),
            self.id_number.as_deref().unwrap_or_default(),
            self.cheque_number.as_deref().unwrap_or_default(),
        ))
    }
}

/// How an action ended once what the server asked for was given: its last answer, and the
/// hand-pay sent with it (for the slip).
pub struct Outcome<T> {
    pub result: Result<T, CallError>,
    pub hand_pay: Option<HandPay>,
}

/// What an action may be asked for.
pub struct Asks<'a> {
    pub approval: &'a ApprovalArgs,
    /// For a payment: the hand-pay given, and whether one may be asked for.
    pub hand_pay: Option<HandPay>,
    pub pays: bool,
}

/// Does `call` and, when the server asks for a supervisor's approval or a hand-pay, gets it and
/// does it again (each at most once). `subject` names the action a grant is for and its ticket,
/// from the refusal's message (a sale's: the ticket tendered).
pub fn attempt<T>(
    client: &Client,
    mut asks: Asks,
    subject: impl Fn(&str) -> Option<(OverrideAction, String)>,
    call: impl Fn(&Client, Option<&HandPay>) -> Result<T, CallError>,
) -> Result<Outcome<T>, Failure> {
    let mut granted: Option<Client> = None;
    loop {
        let result = call(granted.as_ref().unwrap_or(client), asks.hand_pay.as_ref());
        let refused = match result {
            Err(e @ CallError::Refused { .. }) => e,
            result => {
                return Ok(Outcome {
                    result,
                    hand_pay: asks.hand_pay,
                })
            }
        };
        if granted.is_none() && approval::wanted(&refused) {
            let CallError::Refused { message, .. } = &refused else {
                unreachable!("a refusal")
            };
            let Some((action, serial)) = subject(message) else {
                return Err(refused.into());
            };
            let grant = grant(client, asks.approval, action, &serial, refused)?;
            let what = match action {
                OverrideAction::CashOut => "voucher",
                _ => "ticket",
            };
            eprintln!(
                "APPROVED by {} ({}): {} of {what} {serial}",
                grant.supervisor_name,
                grant.supervisor_id,
                action.as_str()
            );
            granted = Some(client.with_grant(&grant.grant));
        } else if asks.pays && asks.hand_pay.is_none() && approval::hand_pay_wanted(&refused) {
            asks.hand_pay = Some(ask_hand_pay(refused)?);
        } else {
            return Ok(Outcome {
                result: Err(refused),
                hand_pay: asks.hand_pay,
            });
        }
    }
}

/// The supervisor's grant: from the options, or asked at the terminal; without either, the
/// server's refusal.
fn grant(
    client: &Client,
    args: &ApprovalArgs,
    action: OverrideAction,
    serial: &str,
    refused: CallError,
) -> Result<OverrideGrant, Failure> {
    let supervisor = match given(args)? {
        Some(s) => s,
        None if prompt::interactive() => {
            eprintln!("{refused}\nA supervisor approves at this counter (Esc gives up):");
            asked().map_err(|e| Failure::Usage(format!("no approval: {e}")))?
        }
        None => return Err(refused.into()),
    };
    Ok(approval::ask(client, action, serial, &supervisor)?)
}

/// The supervisor as the options give them: the password from the environment.
fn given(args: &ApprovalArgs) -> Result<Option<Supervisor>, Failure> {
    let (Some(staff_id), Some(var), Some(code), Some(reason)) = (
        &args.supervisor,
        &args.supervisor_password_env,
        &args.supervisor_code,
        &args.reason,
    ) else {
        return Ok(None);
    };
    let password = std::env::var(var).map_err(|_| {
        Failure::Usage(format!(
            "--supervisor-password-env {var}: the environment has no {var}"
        ))
    })?;
    Ok(Some(Supervisor {
        staff_id: staff_id.clone(),
        password,
        code: code.clone(),
        reason: reason.clone(),
    }))
}

fn asked() -> std::io::Result<Supervisor> {
    Ok(Supervisor {
        staff_id: prompt::line("SUPERVISOR STAFF ID: ")?,
        password: prompt::secret("PASSWORD: ")?,
        code: prompt::line("CODE (6 digits): ")?,
        reason: prompt::line("REASON: ")?,
    })
}

/// The hand-pay, asked at the terminal; from a script, the server's refusal stands.
fn ask_hand_pay(refused: CallError) -> Result<HandPay, Failure> {
    if !prompt::interactive() {
        return Err(refused.into());
    }
    eprintln!("{refused}");
    let asked = || -> std::io::Result<HandPay> {
        let claimant = prompt::line("CLAIMANT'S NAME: ")?;
        let kind = prompt::line("ID DOCUMENT (driver licence, passport): ")?;
        let number = prompt::line("ID NUMBER: ")?;
        let cheque = prompt::line("CHEQUE No. (Enter if none): ")?;
        Ok(approval::hand_pay(&claimant, &kind, &number, &cheque))
    };
    asked().map_err(|e| Failure::Usage(format!("no hand-pay: {e}")))
}
