extension PostgresSchema {
    /// v4's `tokenctl_step` as it shipped, written out: a shipped migration's text never
    /// changes, and the procedures after it are made by ``stepProcedure(create:reads:)``, whose
    /// edits must not reach this one (`ShippedMigrationTests` holds every migration's hash).
    static let v4StepProcedure = #"""
        CREATE PROCEDURE tokenctl_step(changes jsonb, reads jsonb, genesis text, INOUT answer text DEFAULT NULL)
        LANGUAGE plpgsql AS $$
        DECLARE
            change jsonb;
            move jsonb;
            last jsonb;
            ok boolean;
            statuses text[] := '{}';
            pending jsonb := '[]';
            previous text;
            last_seq bigint;
            audit jsonb;
            hashes text[];
            resolved text;
        BEGIN
            FOR change IN SELECT value FROM jsonb_array_elements(changes) LOOP
                move := change->'pass';
                IF move IS NOT NULL THEN
                    -- One statement: the check (the state it moves from; the lease it closes, which
                    -- counts only while the pass is activating) and the move, with the row locked.
                    UPDATE pass_record SET state = move->>'to',
                        lease_attempt_id = (move->'lease'->>'attempt')::bigint, lease_request_id = move->'lease'->>'request',
                        lease_deeplink_hash = move->'lease'->>'deeplink', lease_host_id = move->'lease'->>'host',
                        lease_owner_pid = (move->'lease'->>'pid')::integer, lease_owner_start = move->'lease'->>'processStart',
                        lease_expires_at = clock_timestamp() + (move->'lease'->>'milliseconds')::bigint * interval '1 millisecond'
                    WHERE serial_number = move->>'serial' AND pass_type_identifier = move->>'passType'
                      AND device_account_identifier = move->>'token' AND state = move->>'from'
                      AND (state <> 'activating' OR lease_attempt_id IS NOT DISTINCT FROM (move->>'holder')::bigint);
                    ok := FOUND;
                ELSE
                    ok := true;
                END IF;
                -- Written before, its answer lost with a connection: its last audit row is there (this
                -- row, not one another host wrote for the attempt once its lease had expired).
                IF NOT ok OR move IS NULL THEN
                    last := change->'rows'->-1;
                    IF EXISTS (SELECT 1 FROM audit_row WHERE attempt_id = (last->>'attempt')::bigint AND event = last->>'event'
                               AND at = last->>'at' AND outcome IS NOT DISTINCT FROM last->>'outcome') THEN
                        statuses := statuses || 'done'::text;
                        CONTINUE;
                    END IF;
                END IF;
                IF NOT ok THEN
                    statuses := statuses || 'conflict'::text;
                    CONTINUE;
                END IF;
                pending := pending || (change->'rows');
                statuses := statuses || 'ok'::text;
            END LOOP;
            IF jsonb_array_length(pending) > 0 THEN
                PERFORM pg_advisory_xact_lock(8390042714202374146);
                SELECT seq, hash INTO last_seq, previous FROM audit_row ORDER BY seq DESC LIMIT 1;
                IF NOT FOUND THEN
                    last_seq := 0;
                    previous := genesis;
                END IF;
                hashes := array[previous];
                FOR audit IN SELECT value FROM jsonb_array_elements(pending) LOOP
                    previous := encode(sha256(convert_to('{"previous": "' || previous || '"' || (audit->>'rest'), 'UTF8')), 'hex');
                    hashes := hashes || previous;
                END LOOP;
                INSERT INTO audit_row (seq, attempt_id, event, at, request_id, serial_number, pass_type_identifier,
                    token_unique_reference, device_label, deeplink_hash, owner_pid, owner_start, outcome, error_code,
                    http_status, card_last4, comment, latency_ms, previous_hash, hash)
                SELECT last_seq + n, (a->>'attempt')::bigint, a->>'event', a->>'at', a->>'request', a->>'serial', a->>'passType',
                    a->>'token', a->>'device', a->>'deeplink', (a->>'pid')::integer, a->>'ownerStart', a->>'outcome', a->>'error',
                    (a->>'http')::integer, a->>'last4', a->>'comment', (a->>'latency')::integer, hashes[n], hashes[n + 1]
                FROM jsonb_array_elements(pending) WITH ORDINALITY AS e(a, n);
            END IF;
            IF array_length(statuses, 1) > 0 THEN
                COMMIT;
            END IF;
            -- Index scans per read, a new attempt id each (a subquery per read, not a join the
            -- planner could turn into a scan of the wallet). Without JIT: the planner counts a
            -- hundred reads (any set function's guess), and against a large wallet that cost
            -- would have it compile the query at every call, for longer than it runs. A lease
            -- counts while its pass is activating.
            PERFORM set_config('jit', 'off', true);
            WITH w AS MATERIALIZED (
                SELECT q.n, q.wanted->>'serial' AS serial, q.wanted->>'passType' AS pass_type, q.wanted->>'device' AS device,
                       nextval('audit_attempt_id') AS id
                FROM jsonb_array_elements(reads) WITH ORDINALITY AS q(wanted, n))
            SELECT coalesce(json_agg(json_build_array(w.id, (
                            SELECT coalesce(json_agg(json_build_array(p.pass_type_identifier, p.serial_number, p.device_account_identifier,
                                       p.state, p.device_label, p.card_suffix, CASE WHEN p.state = 'activating' THEN p.lease_attempt_id END,
                                       p.lease_request_id, p.lease_deeplink_hash, p.lease_host_id, p.lease_owner_pid, p.lease_owner_start,
                                       p.lease_expires_at > clock_timestamp())
                                       ORDER BY p.serial_number, p.pass_type_identifier, p.device_account_identifier), '[]')
                            FROM pass_record p
                    WHERE p.serial_number = w.serial AND (w.pass_type IS NULL OR p.pass_type_identifier = w.pass_type)
                      AND (w.device IS NULL OR p.device_label = w.device)))
                ORDER BY w.n), '[]')::text INTO resolved FROM w;
            answer := '{"statuses": ' || to_json(statuses)::text || ', "reads": ' || resolved || '}';
        END $$
        """#
}
