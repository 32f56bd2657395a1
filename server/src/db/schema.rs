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
        kind -> Text,
        secret_hash -> Nullable<Text>,
        totp_secret -> Nullable<Text>,
        totp_last_step -> Nullable<BigInt>,
    }
}

diesel::table! {
    sign_on_failures (principal_id, place) {
        principal_id -> Text,
        place -> Text,
        failures -> Integer,
        locked_until -> Nullable<BigInt>,
    }
}

diesel::table! {
    terminals (site, terminal) {
        site -> Text,
        terminal -> Text,
        last_ticket_number -> BigInt,
        credential_hash -> Nullable<Text>,
        registered_at -> Nullable<BigInt>,
        venue -> Nullable<Text>,
    }
}

diesel::table! {
    displays (site, display) {
        site -> Text,
        display -> Text,
        credential_hash -> Text,
        registered_at -> BigInt,
        credential_at -> BigInt,
        disabled -> Bool,
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
        draw_attempt -> Integer,
        draw_mode -> Text,
    }
}

diesel::table! {
    drawn_numbers (game, position) {
        game -> BigInt,
        position -> Integer,
        number -> Integer,
        drawn_at -> BigInt,
        entered_by -> Nullable<Text>,
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
        cancelled_by -> Nullable<Text>,
        request_digest -> Nullable<Text>,
        entry_form_sha256 -> Nullable<Text>,
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
        bonus_cents -> BigInt,
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
        major -> Bool,
    }
}

diesel::table! {
    game_invalidations (game) {
        game -> BigInt,
        reason -> Text,
        principal_id -> Nullable<Text>,
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

diesel::table! {
    draw_faults (id) {
        id -> BigInt,
        game -> BigInt,
        attempt -> Integer,
        kind -> Text,
        number -> Nullable<Integer>,
        device_id -> Nullable<Text>,
        reason -> Text,
        principal_id -> Text,
        recorded_at -> BigInt,
    }
}

diesel::table! {
    voided_balls (game, attempt, number) {
        game -> BigInt,
        attempt -> Integer,
        number -> Integer,
        position -> Integer,
        drawn_at -> BigInt,
        entered_by -> Nullable<Text>,
        fault_id -> BigInt,
    }
}

diesel::table! {
    draw_corrections (id) {
        id -> BigInt,
        game -> BigInt,
        attempt -> Integer,
        position -> Integer,
        old_number -> Integer,
        new_number -> Integer,
        reason -> Text,
        state -> Text,
        requested_by -> Text,
        requested_at -> BigInt,
        supervisor_id -> Nullable<Text>,
        supervisor_at -> Nullable<BigInt>,
        inspector_id -> Nullable<Text>,
        inspector_at -> Nullable<BigInt>,
        closed_by -> Nullable<Text>,
        closed_at -> Nullable<BigInt>,
        close_reason -> Nullable<Text>,
    }
}

diesel::table! {
    device_holds (id) {
        id -> BigInt,
        device_id -> Text,
        fault_id -> BigInt,
        blocks_from_game -> BigInt,
        opened_at -> BigInt,
        supervisor_id -> Nullable<Text>,
        supervisor_at -> Nullable<BigInt>,
        supervisor_note -> Nullable<Text>,
        inspector_id -> Nullable<Text>,
        inspector_at -> Nullable<BigInt>,
        inspector_note -> Nullable<Text>,
        returned_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    audit_log (seq) {
        seq -> BigInt,
        recorded_at -> BigInt,
        kind -> Text,
        subject -> Text,
        principal_id -> Nullable<Text>,
        payload -> Text,
        prev_hash -> Text,
        hash -> Text,
        chain -> Integer,
    }
}

diesel::table! {
    audit_checkpoints (n) {
        n -> BigInt,
        seq -> BigInt,
        hash -> Text,
        made_at -> BigInt,
        keno_day -> Text,
        instance -> Text,
        reason -> Text,
        prev -> Text,
        public_key -> Text,
        signature -> Text,
        heads -> Nullable<Text>,
    }
}

diesel::table! {
    leadership (id) {
        id -> Integer,
        epoch -> BigInt,
        holder -> Text,
        lease_until -> BigInt,
        acquired_at -> BigInt,
    }
}

diesel::table! {
    audit_chains (chain) {
        chain -> Integer,
        seq -> BigInt,
        hash -> Text,
    }
}

diesel::table! {
    claims (id) {
        id -> BigInt,
        reason -> Text,
        claimant_name -> Text,
        postal_address -> Text,
        phone -> Text,
        purchase_place -> Text,
        purchase_date -> Text,
        approx_game -> Nullable<BigInt>,
        games -> Nullable<Integer>,
        other_details -> Text,
        serial -> Nullable<Text>,
        state -> Text,
        recorded_by -> Text,
        recorded_at -> BigInt,
        ticket_serial -> Nullable<Text>,
        decided_by -> Nullable<Text>,
        decided_at -> Nullable<BigInt>,
        decision_reason -> Nullable<Text>,
        paid_cents -> Nullable<BigInt>,
        paid_by -> Nullable<Text>,
        paid_at -> Nullable<BigInt>,
        cheque_reference -> Nullable<Text>,
        voucher_code -> Nullable<Text>,
        voucher_amount_cents -> Nullable<BigInt>,
        approved_voucher -> Nullable<Text>,
        site -> Nullable<Text>,
        numbers -> Nullable<Text>,
        amount_cents -> Nullable<BigInt>,
    }
}

diesel::table! {
    unclaimed_movements (id) {
        id -> BigInt,
        destination -> Text,
        won_before -> BigInt,
        tickets -> BigInt,
        total_cents -> BigInt,
        reason -> Text,
        decided_by -> Text,
        decided_at -> BigInt,
    }
}

diesel::table! {
    unclaimed_prizes_moved (serial) {
        serial -> Text,
        movement_id -> BigInt,
        prize_cents -> BigInt,
    }
}

diesel::table! {
    jackpot_additions (id) {
        id -> BigInt,
        spots -> Integer,
        cents -> BigInt,
        movement_id -> Nullable<BigInt>,
        added_at -> BigInt,
        applied_game -> Nullable<BigInt>,
    }
}

diesel::table! {
    bonus_prizes (id) {
        id -> BigInt,
        name -> Text,
        bet_type -> Nullable<Text>,
        spots -> Nullable<Integer>,
        min_amount_per_way_cents -> BigInt,
        catch -> Integer,
        prize_cents -> BigInt,
        every_nth_game -> Nullable<BigInt>,
        window_from -> Nullable<BigInt>,
        window_to -> Nullable<BigInt>,
        created_by -> Text,
        created_at -> BigInt,
        approval_reference -> Nullable<Text>,
        approved_by -> Nullable<Text>,
        approved_at -> Nullable<BigInt>,
        withdrawn_by -> Nullable<Text>,
        withdrawn_at -> Nullable<BigInt>,
        funded_by_bonus_fund -> Bool,
        withdrawal_reason -> Nullable<Text>,
    }
}

diesel::table! {
    bonus_fund_movements (id) {
        id -> BigInt,
        cents -> BigInt,
        unclaimed_movement -> Nullable<BigInt>,
        game -> Nullable<BigInt>,
        recorded_at -> BigInt,
    }
}

diesel::table! {
    game_bonus_offers (game, bonus_id) {
        game -> BigInt,
        bonus_id -> BigInt,
    }
}

diesel::table! {
    bonus_results (serial, game, way_index, bonus_id) {
        serial -> Text,
        game -> BigInt,
        way_index -> Integer,
        bonus_id -> BigInt,
        prize_cents -> BigInt,
    }
}

diesel::table! {
    vouchers (code) {
        code -> Text,
        principal_id -> Text,
        request_id -> Nullable<Text>,
        site -> Text,
        terminal -> Text,
        writer -> Text,
        issued_at -> BigInt,
        keno_day -> Text,
        source -> Text,
        ticket -> Nullable<Text>,
        amount_cents -> BigInt,
        balance_cents -> BigInt,
        status -> Text,
        cashed_cents -> BigInt,
        cashed_at -> Nullable<BigInt>,
        cashed_by -> Nullable<Text>,
        request_digest -> Nullable<Text>,
    }
}

diesel::table! {
    sale_tenders (serial, position) {
        serial -> Text,
        position -> Integer,
        kind -> Text,
        reference -> Text,
        covered_cents -> BigInt,
        remaining_cents -> BigInt,
        change_cents -> BigInt,
        spent_at -> BigInt,
    }
}

diesel::table! {
    set_bets (id) {
        id -> BigInt,
        name -> Text,
        description -> Nullable<Text>,
        groups_json -> Text,
        combine_json -> Text,
        amount_per_way_cents -> BigInt,
        created_by -> Text,
        created_at -> BigInt,
        retired_at -> Nullable<BigInt>,
        retired_by -> Nullable<Text>,
        retired_reason -> Nullable<Text>,
    }
}

diesel::table! {
    set_bet_tickets (serial) {
        serial -> Text,
        set_bet_id -> BigInt,
        mode -> Text,
    }
}

diesel::table! {
    special3_approvals (id) {
        id -> BigInt,
        reference -> Text,
        approved_by -> Text,
        approved_at -> BigInt,
        expires_at -> Nullable<BigInt>,
        note -> Nullable<Text>,
        schedule_digest -> Text,
        rule_set -> Text,
        recorded_by -> Text,
        recorded_at -> BigInt,
        withdrawn_at -> Nullable<BigInt>,
        withdrawn_by -> Nullable<Text>,
        withdrawal_reason -> Nullable<Text>,
    }
}

diesel::table! {
    keno_closures (id) {
        id -> BigInt,
        keno_day -> Text,
        closes_at -> BigInt,
        inspector_notified -> Text,
        reason -> Text,
        scheduled_by -> Text,
        scheduled_at -> BigInt,
        withdrawn_at -> Nullable<BigInt>,
        withdrawn_by -> Nullable<Text>,
        withdrawal_reason -> Nullable<Text>,
    }
}

diesel::joinable!(set_bet_tickets -> set_bets (set_bet_id));
diesel::joinable!(staff_sessions -> principals (principal_id));

diesel::table! {
    payment_parts (serial, part) {
        serial -> Text,
        part -> Integer,
        method -> Text,
        cents -> BigInt,
    }
}

diesel::table! {
    ticket_voids (serial) {
        serial -> Text,
        reason -> Text,
        excluded_person -> Nullable<Text>,
        forfeited -> Bool,
        refund_cents -> BigInt,
        voided_by -> Text,
        voided_at -> BigInt,
    }
}

diesel::table! {
    staff_sessions (id) {
        id -> Text,
        token_hash -> Text,
        principal_id -> Text,
        site -> Nullable<Text>,
        terminal -> Nullable<Text>,
        started_at -> BigInt,
        last_seen_at -> BigInt,
        expires_at -> BigInt,
        ended_at -> Nullable<BigInt>,
        end_reason -> Nullable<Text>,
    }
}

diesel::table! {
    shifts (id) {
        id -> BigInt,
        principal_id -> Text,
        site -> Text,
        terminal -> Text,
        keno_day -> Text,
        opened_at -> BigInt,
        float_cents -> BigInt,
        closed_at -> Nullable<BigInt>,
        counted_cents -> Nullable<BigInt>,
        expected_cents -> Nullable<BigInt>,
        over_short_cents -> Nullable<BigInt>,
        signed_off_by -> Nullable<Text>,
        signed_off_at -> Nullable<BigInt>,
        sign_off_reason -> Nullable<Text>,
        sign_off_required -> Bool,
    }
}

diesel::table! {
    overrides (id) {
        id -> Text,
        action -> Text,
        serial -> Text,
        writer_id -> Text,
        site -> Nullable<Text>,
        terminal -> Nullable<Text>,
        supervisor_id -> Text,
        reason -> Text,
        granted_at -> BigInt,
        expires_at -> BigInt,
        used_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    hand_pays (serial) {
        serial -> Text,
        claimant_name -> Text,
        id_kind -> Text,
        id_number -> Text,
        cheque_number -> Nullable<Text>,
        approved_by -> Nullable<Text>,
        recorded_at -> BigInt,
    }
}

diesel::table! {
    request_outcomes (principal_id, request_id) {
        principal_id -> Text,
        request_id -> Text,
        act -> Text,
        subject -> Text,
        digest -> Text,
        outcome_json -> Text,
        done_at -> BigInt,
    }
}

diesel::table! {
    suspensions (id) {
        id -> BigInt,
        cause -> Text,
        detail -> Text,
        began_at -> BigInt,
        instance -> Text,
        state -> Text,
        lost_from -> Nullable<BigInt>,
        lost_to -> Nullable<BigInt>,
        supervisor_id -> Nullable<Text>,
        supervisor_at -> Nullable<BigInt>,
        supervisor_note -> Nullable<Text>,
        inspector_id -> Nullable<Text>,
        inspector_at -> Nullable<BigInt>,
        inspector_note -> Nullable<Text>,
        resumed_at -> Nullable<BigInt>,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    suspensions,
    request_outcomes,
    staff_sessions,
    sign_on_failures,
    shifts,
    overrides,
    hand_pays,
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
    draw_faults,
    voided_balls,
    draw_corrections,
    device_holds,
    audit_log,
    audit_chains,
    leadership,
    claims,
    unclaimed_movements,
    unclaimed_prizes_moved,
    jackpot_additions,
    bonus_prizes,
    bonus_fund_movements,
    game_bonus_offers,
    bonus_results,
    vouchers,
    sale_tenders,
    set_bets,
    set_bet_tickets,
    special3_approvals,
    keno_closures,
    payment_parts,
    ticket_voids,
    displays,
);
