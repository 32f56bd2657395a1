//! The refund of one invalidated game of a ticket (rule 17.3 with general rule 18.2).
//!
//! An invalidated game's wagers are refunded. A ticket's charge is split over its games so that
//! the games' shares add up to exactly what was charged for it, as
//! `shared/rules/INTERPRETATION.md` decides for rule 17.3: each game's share is the total
//! divided by the number of games, rounded down to the cent, and the last game also takes the
//! cents left over (`total % games`). A multi-game discount (rule 6.2(a),(b)) is therefore
//! shared by every game, and a ticket whose every game is invalidated gets back exactly its
//! total. (Before, every game refunded the rounded-down share, the last included, so the
//! refunds of a ticket of 3 games at $10.00 came to $9.99.)

/// Rule 17.3, general rule 18.2: what game `index_of_game` (0 for the ticket's first game) of a
/// ticket of `games` games charged `total_cents` refunds when it is invalidated. A ticket of 0
/// games is taken as one game; a game beyond the ticket refunds nothing.
pub fn game_refund(total_cents: u64, games: u32, index_of_game: u32) -> u64 {
    let games = games.max(1);
    if index_of_game >= games {
        return 0;
    }
    let share = total_cents / u64::from(games);
    let left_over = total_cents % u64::from(games);
    if index_of_game == games - 1 {
        share + left_over
    } else {
        share
    }
}
