//! The keno writer's terminal (rules 5, 6, 8, 11, 15): selling, checking, paying and
//! cancelling tickets at the counter. It is built in issue 5; until then it says so rather than
//! pretend to work.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "writer-terminal: not built yet (issue 5). The rules it will sell under can be seen with \
         `keno-server rules show`."
    );
    ExitCode::from(2)
}
