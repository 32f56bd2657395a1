//! The tables of `migrations/{sqlite,postgres}` (the same on both backends).

diesel::table! {
    rule_sets (hash) {
        hash -> Text,
        name -> Text,
        body -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    principals (id) {
        id -> Text,
        role -> Text,
        name -> Text,
        site -> Nullable<Text>,
        terminal -> Nullable<Text>,
        token_hash -> Text,
        created_at -> BigInt,
        disabled -> Bool,
    }
}

diesel::table! {
    terminals (site, terminal) {
        site -> Text,
        terminal -> Text,
        last_ticket_number -> BigInt,
    }
}

diesel::table! {
    games (number) {
        number -> BigInt,
        keno_day -> Text,
        state -> Text,
        source -> Text,
        rule_set -> Text,
        opened_at -> BigInt,
        closes_at -> BigInt,
        closed_at -> Nullable<BigInt>,
        drawn_at -> Nullable<BigInt>,
        settled_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    drawn_numbers (game, position) {
        game -> BigInt,
        position -> Integer,
        number -> Integer,
        drawn_at -> BigInt,
    }
}

diesel::table! {
    tickets (serial) {
        serial -> Text,
        principal_id -> Text,
        request_id -> Text,
        ticket_number -> BigInt,
        site -> Text,
        terminal -> Text,
        writer -> Text,
        issued_at -> BigInt,
        keno_day -> Text,
        bet_type -> Text,
        schedule -> Text,
        groups_json -> Text,
        combine_json -> Text,
        way_counts_json -> Text,
        amount_per_way_cents -> BigInt,
        way_count -> BigInt,
        first_game -> BigInt,
        last_game -> BigInt,
        games -> Integer,
        charged_games -> Integer,
        game_cost_cents -> BigInt,
        total_cents -> BigInt,
        rule_set -> Text,
        status -> Text,
        cancelled_from_game -> Nullable<BigInt>,
        refund_cents -> BigInt,
        cancelled_at -> Nullable<BigInt>,
        paid_cents -> BigInt,
        paid_at -> Nullable<BigInt>,
        paid_by -> Nullable<Text>,
        pay_method -> Nullable<Text>,
    }
}

diesel::table! {
    game_settlements (game) {
        game -> BigInt,
        ways -> BigInt,
        total_prizes_cents -> BigInt,
        major_prizes -> BigInt,
        prorated -> Bool,
        prorate_before_cents -> BigInt,
        prorate_after_cents -> BigInt,
        floor_binds_for_all -> Bool,
        settled_at -> BigInt,
    }
}

diesel::table! {
    jackpot_pools (game, spots) {
        game -> BigInt,
        spots -> Integer,
        carried_in_cents -> BigInt,
        contributions_cents -> BigInt,
        pool_cents -> BigInt,
        winners -> BigInt,
        paid_cents -> BigInt,
        breakage_cents -> BigInt,
        next_pool_cents -> BigInt,
    }
}

diesel::table! {
    ticket_results (serial, game) {
        serial -> Text,
        game -> BigInt,
        prize_cents -> BigInt,
        major -> Bool,
    }
}

diesel::table! {
    way_results (serial, game, way_index) {
        serial -> Text,
        game -> BigInt,
        way_index -> Integer,
        catch -> Integer,
        prize_cents -> BigInt,
        prorated -> Bool,
        jackpot -> Bool,
    }
}

diesel::table! {
    game_invalidations (game) {
        game -> BigInt,
        reason -> Text,
        principal_id -> Text,
        invalidated_at -> BigInt,
    }
}

diesel::table! {
    ticket_refunds (serial, game) {
        serial -> Text,
        game -> BigInt,
        refund_cents -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    rule_sets,
    principals,
    terminals,
    games,
    drawn_numbers,
    tickets,
    game_settlements,
    jackpot_pools,
    ticket_results,
    way_results,
    game_invalidations,
    ticket_refunds,
);
