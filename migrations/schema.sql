-- schema.sql is generated; do not edit
-- It is the schema of a database migrated with every file of migrations/, dumped by
-- pg_dump 15 (--schema-only --no-owner --no-privileges). After adding a migration, run
--   go test ./models -run TestSchemaFileIsCurrent -update-schema

-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- Name: EXTENSION pg_trgm; Type: COMMENT; Schema: -; Owner: -

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';

-- Name: job_name; Type: DOMAIN; Schema: public; Owner: -

CREATE DOMAIN public.job_name AS text
	CONSTRAINT job_name_format CHECK ((VALUE ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$'::text));

-- Name: audit_entries_append_only(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.audit_entries_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('sked.audit_retention', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit_entries is append-only (%)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

-- Name: job_collections_notify(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.job_collections_notify() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('sked_engine', '');
    RETURN NULL;
END $$;

-- Name: job_facets_of(text, json, text); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.job_facets_of(name text, definition json, state_note text) RETURNS TABLE(search text, time_zone text, calendar_excludes jsonb)
    LANGUAGE sql STABLE ROWS 1 PARALLEL SAFE
    AS $$
SELECT lower(
           name
           || ' ' || coalesce(definition -> 'action' -> 'request' ->> 'uri', '')
           || ' ' || coalesce(definition -> 'action' -> 'queueMessage' ->> 'storageAccount', '')
           || ' ' || coalesce(definition -> 'action' -> 'queueMessage' ->> 'queueName', '')
           || ' ' || coalesce(definition -> 'action' -> 'serviceBusQueueMessage' ->> 'namespace', '')
           || ' ' || coalesce(definition -> 'action' -> 'serviceBusQueueMessage' ->> 'queueName', '')
           || ' ' || coalesce(definition -> 'action' -> 'serviceBusTopicMessage' ->> 'namespace', '')
           || ' ' || coalesce(definition -> 'action' -> 'serviceBusTopicMessage' ->> 'topicPath', '')
           || ' ' || coalesce(definition -> 'action' -> 'errorAction' -> 'request' ->> 'uri', '')
           || ' ' || state_note
       ),
       coalesce(definition -> 'recurrence' ->> 'timeZone', ''),
       lower((definition::jsonb #> '{recurrence,calendars,exclude}')::text)::jsonb
$$;

-- Name: jobs_abandon(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.jobs_abandon() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    DELETE FROM job_attempts WHERE job_id = NEW.id AND status = 'pending';
    RETURN NULL;
END $$;

-- Name: jobs_schedule(); Type: FUNCTION; Schema: public; Owner: -

CREATE FUNCTION public.jobs_schedule() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- An enabled job was created, or now waits to be scheduled, or got a
    -- new next run from its writer: the engines look again.
    IF NEW.state <> 'enabled' THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'INSERT' THEN
        PERFORM pg_notify('sked_engine', '');
    ELSIF NEW.needs_schedule OR NEW.next_run_at IS DISTINCT FROM OLD.next_run_at THEN
        PERFORM pg_notify('sked_engine', '');
    END IF;
    RETURN NEW;
END $$;

-- Name: alert_rules; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.alert_rules (
    id bigint NOT NULL,
    workspace_id text NOT NULL,
    name text NOT NULL,
    channel_id bigint NOT NULL,
    scope_resource_group text DEFAULT ''::text NOT NULL,
    scope_collection text DEFAULT ''::text NOT NULL,
    scope_job text DEFAULT ''::text NOT NULL,
    events jsonb NOT NULL,
    threshold integer DEFAULT 0 NOT NULL,
    min_interval_ms bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by bigint,
    updated_by bigint,
    scope_monitor text DEFAULT ''::text NOT NULL,
    CONSTRAINT alert_rules_check CHECK (((threshold >= 2) = (events ? 'consecutiveFailures'::text))),
    CONSTRAINT alert_rules_check1 CHECK (((scope_job = ''::text) OR (scope_collection <> ''::text))),
    CONSTRAINT alert_rules_check2 CHECK (((scope_collection = ''::text) OR (scope_resource_group <> ''::text))),
    CONSTRAINT alert_rules_events_check CHECK (((jsonb_typeof(events) = 'array'::text) AND (jsonb_array_length(events) >= 1) AND (events <@ '["attemptFailed", "consecutiveFailures", "deadlineMissed", "jobCompleted", "jobFaulted", "missed", "monitorFailed", "monitorMissed", "monitorRecovered", "occurrenceFaulted", "recovered", "slowRun"]'::jsonb))),
    CONSTRAINT alert_rules_min_interval_ms_check CHECK ((min_interval_ms >= 0)),
    CONSTRAINT alert_rules_name_check CHECK ((name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT alert_rules_scope_monitor_check CHECK (((scope_monitor = ''::text) OR (scope_resource_group = ''::text))),
    CONSTRAINT alert_rules_threshold_check CHECK (((threshold = 0) OR (threshold >= 2)))
);

-- Name: alert_rules_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.alert_rules ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.alert_rules_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: api_tokens; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.api_tokens (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    name text NOT NULL,
    token_hash bytea NOT NULL,
    prefix text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    role text DEFAULT 'owner'::text NOT NULL,
    workspaces text,
    expires_at timestamp with time zone,
    CONSTRAINT api_tokens_name_check CHECK (((length(name) >= 1) AND (length(name) <= 100))),
    CONSTRAINT api_tokens_role_check CHECK ((role = ANY (ARRAY['reader'::text, 'operator'::text, 'editor'::text, 'owner'::text]))),
    CONSTRAINT api_tokens_token_hash_check CHECK ((length(token_hash) = 32)),
    CONSTRAINT api_tokens_workspaces_check CHECK ((workspaces ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,89}( [A-Za-z0-9][A-Za-z0-9._-]{0,89}){0,99}$'::text))
);

-- Name: api_tokens_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.api_tokens ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.api_tokens_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: audit_entries; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.audit_entries (
    id bigint NOT NULL,
    at timestamp with time zone NOT NULL,
    workspace_id text,
    actor_kind text NOT NULL,
    actor_user_id bigint,
    actor_name text DEFAULT ''::text NOT NULL,
    token_id bigint,
    token_name text DEFAULT ''::text NOT NULL,
    via text DEFAULT ''::text NOT NULL,
    addr text DEFAULT ''::text NOT NULL,
    action text NOT NULL,
    resource text DEFAULT ''::text NOT NULL,
    detail text DEFAULT ''::text NOT NULL,
    diff jsonb DEFAULT '[]'::jsonb NOT NULL,
    CONSTRAINT audit_entries_action_check CHECK ((action = ANY (ARRAY['alert.delete'::text, 'alert.put'::text, 'calendar.delete'::text, 'calendar.import'::text, 'calendar.put'::text, 'channel.delete'::text, 'channel.put'::text, 'channel.test'::text, 'collection.delete'::text, 'collection.patch'::text, 'collection.put'::text, 'collection.signing.delete'::text, 'collection.signing.put'::text, 'collection.state'::text, 'import'::text, 'job.backfill'::text, 'job.backfill.cancel'::text, 'job.complete'::text, 'job.delete'::text, 'job.disable'::text, 'job.enable'::text, 'job.fault'::text, 'job.patch'::text, 'job.put'::text, 'job.rerun'::text, 'job.run'::text, 'job.run.changes'::text, 'member.put'::text, 'member.remove'::text, 'monitor.delete'::text, 'monitor.put'::text, 'monitor.rotate'::text, 'signin'::text, 'signout'::text, 'target.delete'::text, 'target.put'::text, 'token.create'::text, 'token.revoke'::text, 'user.create'::text, 'user.disable'::text, 'user.enable'::text, 'user.password'::text, 'workspace.create'::text, 'workspace.delete'::text, 'workspace.rename'::text]))),
    CONSTRAINT audit_entries_actor_kind_check CHECK ((actor_kind = ANY (ARRAY['user'::text, 'token'::text, 'cli'::text, 'engine'::text, 'system'::text]))),
    CONSTRAINT audit_entries_diff_check CHECK ((jsonb_typeof(diff) = 'array'::text)),
    CONSTRAINT audit_entries_via_check CHECK ((via = ANY (ARRAY[''::text, 'api'::text, 'web'::text, 'cli'::text, 'engine'::text])))
);

-- Name: audit_entries_id_seq; Type: SEQUENCE; Schema: public; Owner: -

CREATE SEQUENCE public.audit_entries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

-- Name: audit_entries_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -

ALTER SEQUENCE public.audit_entries_id_seq OWNED BY public.audit_entries.id;

-- Name: backfill_runs; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.backfill_runs (
    backfill_id bigint NOT NULL,
    job_id bigint NOT NULL,
    expected_time timestamp with time zone NOT NULL,
    state text NOT NULL,
    CONSTRAINT backfill_runs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'started'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text])))
);

-- Name: backfills; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.backfills (
    id bigint NOT NULL,
    workspace_id text NOT NULL,
    job_id bigint NOT NULL,
    from_time timestamp with time zone NOT NULL,
    to_time timestamp with time zone NOT NULL,
    only_runs text NOT NULL,
    run_order text NOT NULL,
    max_concurrent integer NOT NULL,
    state text NOT NULL,
    total integer NOT NULL,
    skipped integer NOT NULL,
    created_by text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    ended_at timestamp with time zone,
    CONSTRAINT backfills_check CHECK ((to_time > from_time)),
    CONSTRAINT backfills_created_by_check CHECK ((length(created_by) <= 255)),
    CONSTRAINT backfills_max_concurrent_check CHECK (((max_concurrent >= 1) AND (max_concurrent <= 20))),
    CONSTRAINT backfills_only_runs_check CHECK ((only_runs = ANY (ARRAY['missing'::text, 'failed'::text, 'all'::text]))),
    CONSTRAINT backfills_run_order_check CHECK ((run_order = ANY (ARRAY['oldestFirst'::text, 'newestFirst'::text]))),
    CONSTRAINT backfills_skipped_check CHECK ((skipped >= 0)),
    CONSTRAINT backfills_state_check CHECK ((state = ANY (ARRAY['running'::text, 'done'::text, 'cancelled'::text]))),
    CONSTRAINT backfills_total_check CHECK ((total >= 0))
);

-- Name: backfills_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.backfills ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.backfills_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: calendars; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.calendars (
    id bigint NOT NULL,
    workspace_id text NOT NULL,
    name text NOT NULL,
    definition jsonb NOT NULL,
    version bigint DEFAULT 1 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by bigint,
    updated_by bigint,
    CONSTRAINT calendars_definition_check CHECK ((jsonb_typeof(definition) = 'object'::text)),
    CONSTRAINT calendars_name_check CHECK ((name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT calendars_version_check CHECK ((version >= 1))
);

-- Name: calendars_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.calendars ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.calendars_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: channels; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.channels (
    id bigint NOT NULL,
    workspace_id text NOT NULL,
    name text NOT NULL,
    type text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    config jsonb NOT NULL,
    secrets bytea,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by bigint,
    updated_by bigint,
    CONSTRAINT channels_config_check CHECK ((jsonb_typeof(config) = 'object'::text)),
    CONSTRAINT channels_name_check CHECK ((name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT channels_type_check CHECK ((type = ANY (ARRAY['webhook'::text, 'slack'::text, 'teams'::text, 'email'::text])))
);

-- Name: channels_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.channels ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.channels_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: collection_job_counts; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.collection_job_counts (
    job_collection_id bigint NOT NULL,
    enabled bigint DEFAULT 0 NOT NULL,
    disabled bigint DEFAULT 0 NOT NULL,
    completed bigint DEFAULT 0 NOT NULL,
    faulted bigint DEFAULT 0 NOT NULL,
    CONSTRAINT collection_job_counts_completed_check CHECK ((completed >= 0)),
    CONSTRAINT collection_job_counts_disabled_check CHECK ((disabled >= 0)),
    CONSTRAINT collection_job_counts_enabled_check CHECK ((enabled >= 0)),
    CONSTRAINT collection_job_counts_faulted_check CHECK ((faulted >= 0))
);

-- Name: collection_signing; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.collection_signing (
    job_collection_id bigint NOT NULL,
    secrets bytea NOT NULL,
    previous_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by bigint,
    updated_by bigint
);

-- Name: engine_instances; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.engine_instances (
    id text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    heartbeat_at timestamp with time zone NOT NULL,
    version text DEFAULT ''::text NOT NULL,
    schema_version integer DEFAULT 0 NOT NULL,
    CONSTRAINT engine_instances_id_check CHECK (((id <> ''::text) AND (length(id) <= 255))),
    CONSTRAINT engine_instances_schema_version_check CHECK ((schema_version >= 0)),
    CONSTRAINT engine_instances_version_check CHECK ((length(version) <= 255))
);

-- Name: history_hours; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.history_hours (
    workspace_id text NOT NULL,
    hour timestamp with time zone NOT NULL,
    status text NOT NULL,
    count bigint NOT NULL,
    max_lateness_ms bigint,
    slot smallint DEFAULT 0 NOT NULL,
    CONSTRAINT history_hours_slot_check CHECK (((slot >= 0) AND (slot <= 15))),
    CONSTRAINT history_hours_status_check CHECK ((status = ANY (ARRAY['Completed'::text, 'Failed'::text, 'Postponed'::text])))
);

-- Name: job_attempts; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_attempts (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    expected_time timestamp with time zone NOT NULL,
    action text NOT NULL,
    attempt integer NOT NULL,
    occurrence bigint NOT NULL,
    status text NOT NULL,
    due_at timestamp with time zone NOT NULL,
    lease_owner text,
    lease_expires_at timestamp with time zone,
    started_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    rerun_of bigint,
    rerun_by text,
    attempt_base integer DEFAULT 1 NOT NULL,
    changes jsonb,
    changes_shown jsonb,
    backfill_id bigint,
    target_workspace text,
    target_host text,
    limit_held_at timestamp with time zone,
    limit_wait_ms bigint,
    CONSTRAINT job_attempts_action_check CHECK ((action = ANY (ARRAY['MainAction'::text, 'ErrorAction'::text]))),
    CONSTRAINT job_attempts_attempt_check CHECK ((attempt >= 1)),
    CONSTRAINT job_attempts_check CHECK (((status = 'running'::text) = ((lease_owner IS NOT NULL) AND (lease_expires_at IS NOT NULL)))),
    CONSTRAINT job_attempts_check1 CHECK (((attempt_base >= 1) AND (attempt_base <= attempt))),
    CONSTRAINT job_attempts_occurrence_check CHECK ((occurrence >= 0)),
    CONSTRAINT job_attempts_rerun_by_check CHECK ((length(rerun_by) <= 255)),
    CONSTRAINT job_attempts_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'running'::text])))
)
WITH (autovacuum_vacuum_scale_factor='0.02', autovacuum_vacuum_insert_scale_factor='0.02', autovacuum_analyze_scale_factor='0.02');

-- Name: job_attempts_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.job_attempts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.job_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: job_collections; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_collections (
    id bigint NOT NULL,
    resource_group_id bigint NOT NULL,
    name text NOT NULL,
    location text DEFAULT ''::text NOT NULL,
    tags jsonb DEFAULT '{}'::jsonb NOT NULL,
    sku text DEFAULT 'Standard'::text NOT NULL,
    state text DEFAULT 'Enabled'::text NOT NULL,
    max_job_count integer,
    max_job_occurrence integer,
    max_recurrence_frequency text,
    max_recurrence_interval integer,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    state_note text DEFAULT ''::text NOT NULL,
    state_changed_by text DEFAULT ''::text NOT NULL,
    state_changed_at timestamp with time zone,
    CONSTRAINT job_collections_max_job_count_check CHECK ((max_job_count >= 0)),
    CONSTRAINT job_collections_max_job_occurrence_check CHECK ((max_job_occurrence >= 0)),
    CONSTRAINT job_collections_max_recurrence_frequency_check CHECK ((max_recurrence_frequency = ANY (ARRAY['second'::text, 'minute'::text, 'hour'::text, 'day'::text, 'week'::text, 'month'::text, 'year'::text]))),
    CONSTRAINT job_collections_max_recurrence_interval_check CHECK ((max_recurrence_interval >= 1)),
    CONSTRAINT job_collections_name_check CHECK ((name ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$'::text)),
    CONSTRAINT job_collections_sku_check CHECK ((sku = ANY (ARRAY['Free'::text, 'Standard'::text, 'P10Premium'::text, 'P20Premium'::text]))),
    CONSTRAINT job_collections_state_changed_by_length CHECK ((char_length(state_changed_by) <= 200)),
    CONSTRAINT job_collections_state_check CHECK ((state = ANY (ARRAY['Enabled'::text, 'Disabled'::text, 'Suspended'::text]))),
    CONSTRAINT job_collections_state_note_length CHECK ((char_length(state_note) <= 500)),
    CONSTRAINT job_collections_tags_check CHECK ((jsonb_typeof(tags) = 'object'::text))
);

-- Name: job_collections_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.job_collections ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.job_collections_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: job_deadlines; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_deadlines (
    job_id bigint NOT NULL,
    expected_time timestamp with time zone NOT NULL,
    due_at timestamp with time zone NOT NULL,
    deadline_at timestamp with time zone NOT NULL,
    skipped boolean DEFAULT false NOT NULL,
    decided_at timestamp with time zone,
    met_at timestamp with time zone,
    missed boolean DEFAULT false NOT NULL,
    CONSTRAINT job_deadlines_check CHECK ((deadline_at > due_at))
);

-- Name: job_facets; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_facets (
    job_id bigint NOT NULL,
    search text NOT NULL,
    time_zone text NOT NULL,
    calendar_excludes jsonb
);

-- Name: jobs; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.jobs (
    id bigint NOT NULL,
    job_collection_id bigint NOT NULL,
    name public.job_name NOT NULL,
    definition json NOT NULL,
    state text DEFAULT 'enabled'::text NOT NULL,
    next_run_at timestamp with time zone,
    last_run_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    ended_at timestamp with time zone,
    schedule_base timestamp with time zone,
    needs_schedule boolean DEFAULT false NOT NULL,
    scheduled_count bigint DEFAULT 0 NOT NULL,
    occurrence_count bigint DEFAULT 0 NOT NULL,
    secrets bytea,
    state_note text DEFAULT ''::text NOT NULL,
    state_changed_by text DEFAULT ''::text NOT NULL,
    state_changed_at timestamp with time zone,
    last_expected_at timestamp with time zone,
    CONSTRAINT jobs_check CHECK (((state = ANY (ARRAY['completed'::text, 'faulted'::text])) = (ended_at IS NOT NULL))),
    CONSTRAINT jobs_occurrence_count_check CHECK ((occurrence_count >= 0)),
    CONSTRAINT jobs_scheduled_count_check CHECK ((scheduled_count >= 0)),
    CONSTRAINT jobs_state_changed_by_length CHECK ((char_length(state_changed_by) <= 200)),
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['enabled'::text, 'disabled'::text, 'completed'::text, 'faulted'::text]))),
    CONSTRAINT jobs_state_note_length CHECK ((char_length(state_note) <= 500))
)
WITH (autovacuum_vacuum_scale_factor='0.02', autovacuum_vacuum_insert_scale_factor='0.02', autovacuum_analyze_scale_factor='0.02');

-- Name: job_facets_derived; Type: VIEW; Schema: public; Owner: -

CREATE VIEW public.job_facets_derived AS
 SELECT j.id AS job_id,
    f.search,
    f.time_zone,
    f.calendar_excludes
   FROM (public.jobs j
     CROSS JOIN LATERAL public.job_facets_of((j.name)::text, j.definition, j.state_note) f(search, time_zone, calendar_excludes));

-- Name: job_history; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_history (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    start_time timestamp with time zone NOT NULL,
    end_time timestamp with time zone,
    expected_execution_time timestamp with time zone NOT NULL,
    action_name text NOT NULL,
    status text NOT NULL,
    message text DEFAULT ''::text NOT NULL,
    retry_count integer DEFAULT 0 NOT NULL,
    repeat_count bigint DEFAULT 0 NOT NULL,
    lateness_ms bigint,
    attempt_id bigint,
    rerun_of bigint,
    rerun_by text,
    changes jsonb,
    backfill_id bigint,
    limit_wait_ms bigint,
    lease_owner text,
    lease_expires_at timestamp with time zone,
    due_at timestamp with time zone,
    CONSTRAINT job_history_action_name_check CHECK ((action_name = ANY (ARRAY['MainAction'::text, 'ErrorAction'::text]))),
    CONSTRAINT job_history_check CHECK (((end_time IS NULL) OR (end_time >= start_time))),
    CONSTRAINT job_history_repeat_count_check CHECK ((repeat_count >= 0)),
    CONSTRAINT job_history_rerun_by_check CHECK ((length(rerun_by) <= 255)),
    CONSTRAINT job_history_retry_count_check CHECK ((retry_count >= 0)),
    CONSTRAINT job_history_status_check CHECK ((status = ANY (ARRAY['Completed'::text, 'Failed'::text, 'Postponed'::text, 'Running'::text])))
)
PARTITION BY RANGE (start_time);

-- Name: job_history_default; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_history_default (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    start_time timestamp with time zone NOT NULL,
    end_time timestamp with time zone,
    expected_execution_time timestamp with time zone NOT NULL,
    action_name text NOT NULL,
    status text NOT NULL,
    message text DEFAULT ''::text NOT NULL,
    retry_count integer DEFAULT 0 NOT NULL,
    repeat_count bigint DEFAULT 0 NOT NULL,
    lateness_ms bigint,
    attempt_id bigint,
    rerun_of bigint,
    rerun_by text,
    changes jsonb,
    backfill_id bigint,
    limit_wait_ms bigint,
    lease_owner text,
    lease_expires_at timestamp with time zone,
    due_at timestamp with time zone,
    CONSTRAINT job_history_action_name_check CHECK ((action_name = ANY (ARRAY['MainAction'::text, 'ErrorAction'::text]))),
    CONSTRAINT job_history_check CHECK (((end_time IS NULL) OR (end_time >= start_time))),
    CONSTRAINT job_history_repeat_count_check CHECK ((repeat_count >= 0)),
    CONSTRAINT job_history_rerun_by_check CHECK ((length(rerun_by) <= 255)),
    CONSTRAINT job_history_retry_count_check CHECK ((retry_count >= 0)),
    CONSTRAINT job_history_status_check CHECK ((status = ANY (ARRAY['Completed'::text, 'Failed'::text, 'Postponed'::text, 'Running'::text])))
)
WITH (fillfactor='50');

-- Name: job_history_details; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_history_details (
    history_id bigint NOT NULL,
    instance text,
    due_at timestamp with time zone,
    claimed_at timestamp with time zone,
    sent_at timestamp with time zone,
    idempotency_key text,
    request jsonb,
    response jsonb,
    start_time timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT job_history_details_idempotency_key_check CHECK ((length(idempotency_key) <= 255)),
    CONSTRAINT job_history_details_instance_check CHECK ((length(instance) <= 255)),
    CONSTRAINT job_history_details_request_size CHECK ((pg_column_size(request) <= 65536)),
    CONSTRAINT job_history_details_response_size CHECK ((pg_column_size(response) <= 65536))
)
PARTITION BY RANGE (start_time);

-- Name: job_history_details_default; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_history_details_default (
    history_id bigint NOT NULL,
    instance text,
    due_at timestamp with time zone,
    claimed_at timestamp with time zone,
    sent_at timestamp with time zone,
    idempotency_key text,
    request jsonb,
    response jsonb,
    start_time timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT job_history_details_idempotency_key_check CHECK ((length(idempotency_key) <= 255)),
    CONSTRAINT job_history_details_instance_check CHECK ((length(instance) <= 255)),
    CONSTRAINT job_history_details_request_size CHECK ((pg_column_size(request) <= 65536)),
    CONSTRAINT job_history_details_response_size CHECK ((pg_column_size(response) <= 65536))
);

-- Name: job_history_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.job_history ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.job_history_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: job_results; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_results (
    job_id bigint NOT NULL,
    execution_count bigint DEFAULT 0 NOT NULL,
    failure_count bigint DEFAULT 0 NOT NULL,
    faulted_count bigint DEFAULT 0 NOT NULL,
    consecutive_faults integer DEFAULT 0 NOT NULL,
    last_occurrence_faulted boolean DEFAULT false NOT NULL,
    last_status text,
    last_status_at timestamp with time zone,
    last_failed_at timestamp with time zone,
    CONSTRAINT job_results_consecutive_faults_check CHECK ((consecutive_faults >= 0)),
    CONSTRAINT job_results_execution_count_check CHECK ((execution_count >= 0)),
    CONSTRAINT job_results_failure_count_check CHECK ((failure_count >= 0)),
    CONSTRAINT job_results_faulted_count_check CHECK ((faulted_count >= 0)),
    CONSTRAINT job_results_last_status_check CHECK ((last_status = ANY (ARRAY['Completed'::text, 'Failed'::text, 'Postponed'::text])))
)
WITH (fillfactor='50');

-- Name: job_slow_runs; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_slow_runs (
    attempt_id bigint NOT NULL,
    job_id bigint NOT NULL,
    action text NOT NULL,
    expected_time timestamp with time zone NOT NULL,
    started_at timestamp with time zone NOT NULL,
    raised_at timestamp with time zone NOT NULL,
    CONSTRAINT job_slow_runs_action_check CHECK ((action = ANY (ARRAY['MainAction'::text, 'ErrorAction'::text])))
);

-- Name: job_trigger_causes; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_trigger_causes (
    downstream_id bigint NOT NULL,
    expected_time timestamp with time zone NOT NULL,
    upstream_id bigint NOT NULL,
    upstream_history_id bigint NOT NULL,
    upstream_ended_at timestamp with time zone NOT NULL
);

-- Name: job_trigger_ends; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_trigger_ends (
    id bigint NOT NULL,
    downstream_id bigint NOT NULL,
    upstream_id bigint NOT NULL,
    history_id bigint NOT NULL,
    ended_at timestamp with time zone NOT NULL,
    succeeded boolean NOT NULL
);

-- Name: job_trigger_ends_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.job_trigger_ends ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.job_trigger_ends_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: job_trigger_upstreams; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_trigger_upstreams (
    downstream_id bigint NOT NULL,
    upstream_id bigint NOT NULL,
    "position" integer NOT NULL,
    on_status text NOT NULL,
    CONSTRAINT job_trigger_upstreams_on_status_check CHECK ((on_status = ANY (ARRAY['succeeded'::text, 'failed'::text, 'finished'::text]))),
    CONSTRAINT job_trigger_upstreams_position_check CHECK (("position" >= 0))
);

-- Name: job_trigger_waits; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.job_trigger_waits (
    downstream_id bigint NOT NULL,
    upstream_id bigint NOT NULL,
    history_id bigint NOT NULL,
    ended_at timestamp with time zone NOT NULL
);

-- Name: jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.jobs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: jobs_with_results; Type: VIEW; Schema: public; Owner: -

CREATE VIEW public.jobs_with_results AS
 SELECT j.id,
    j.job_collection_id,
    j.name,
    j.definition,
    j.state,
    j.next_run_at,
    j.last_run_at,
    j.created_at,
    j.updated_at,
    j.ended_at,
    j.schedule_base,
    j.needs_schedule,
    j.scheduled_count,
    j.occurrence_count,
    j.secrets,
    j.state_note,
    j.state_changed_by,
    j.state_changed_at,
    r.job_id AS result_id,
    r.execution_count,
    r.failure_count,
    r.faulted_count,
    r.consecutive_faults,
    r.last_occurrence_faulted,
    r.last_status,
    r.last_status_at,
    r.last_failed_at
   FROM (public.jobs j
     LEFT JOIN public.job_results r ON ((r.job_id = j.id)));

-- Name: memberships; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.memberships (
    workspace_id text NOT NULL,
    user_id bigint NOT NULL,
    role text DEFAULT 'reader'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT memberships_role_check CHECK ((role = ANY (ARRAY['reader'::text, 'operator'::text, 'editor'::text, 'owner'::text])))
);

-- Name: monitor_occurrences; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.monitor_occurrences (
    monitor_id bigint NOT NULL,
    expected_at timestamp with time zone NOT NULL,
    met_at timestamp with time zone,
    decided_at timestamp with time zone NOT NULL
);

-- Name: monitor_pings; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.monitor_pings (
    id bigint NOT NULL,
    monitor_id bigint NOT NULL,
    kind text NOT NULL,
    at timestamp with time zone NOT NULL,
    message text DEFAULT ''::text NOT NULL,
    CONSTRAINT monitor_pings_kind_check CHECK ((kind = ANY (ARRAY['success'::text, 'start'::text, 'fail'::text]))),
    CONSTRAINT monitor_pings_message_check CHECK ((octet_length(message) <= 10240))
);

-- Name: monitor_pings_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.monitor_pings ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.monitor_pings_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: monitor_throttles; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.monitor_throttles (
    rule_id bigint NOT NULL,
    monitor_id bigint NOT NULL,
    window_until timestamp with time zone NOT NULL,
    digest_id bigint
);

-- Name: monitors; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.monitors (
    id bigint NOT NULL,
    workspace_id text NOT NULL,
    name text NOT NULL,
    definition jsonb NOT NULL,
    token_hash bytea NOT NULL,
    token_sealed bytea NOT NULL,
    anchor timestamp with time zone NOT NULL,
    checked_through timestamp with time zone NOT NULL,
    status text DEFAULT 'new'::text NOT NULL,
    status_since timestamp with time zone DEFAULT now() NOT NULL,
    last_ping_at timestamp with time zone,
    last_ping_kind text,
    last_success_at timestamp with time zone,
    started_at timestamp with time zone,
    slow_raised_for timestamp with time zone,
    version bigint DEFAULT 1 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by bigint,
    updated_by bigint,
    CONSTRAINT monitors_definition_check CHECK ((jsonb_typeof(definition) = 'object'::text)),
    CONSTRAINT monitors_last_ping_kind_check CHECK ((last_ping_kind = ANY (ARRAY['success'::text, 'start'::text, 'fail'::text]))),
    CONSTRAINT monitors_name_check CHECK ((name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'::text)),
    CONSTRAINT monitors_status_check CHECK ((status = ANY (ARRAY['new'::text, 'up'::text, 'down'::text])))
);

-- Name: monitors_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.monitors ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.monitors_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: notification_throttles; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.notification_throttles (
    rule_id bigint NOT NULL,
    job_id bigint NOT NULL,
    window_until timestamp with time zone NOT NULL,
    digest_id bigint
);

-- Name: notifications; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.notifications (
    id bigint NOT NULL,
    workspace_id text NOT NULL,
    channel_id bigint,
    channel_name text NOT NULL,
    rule_id bigint,
    rule_name text DEFAULT ''::text NOT NULL,
    job_id bigint,
    event_id text NOT NULL,
    event_type text NOT NULL,
    event jsonb NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_owner text,
    lease_expires_at timestamp with time zone,
    last_status_code integer DEFAULT 0 NOT NULL,
    last_answer text DEFAULT ''::text NOT NULL,
    last_error text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    monitor_id bigint,
    CONSTRAINT notifications_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT notifications_check CHECK (((status = 'sending'::text) = ((lease_owner IS NOT NULL) AND (lease_expires_at IS NOT NULL)))),
    CONSTRAINT notifications_check1 CHECK (((status = ANY (ARRAY['delivered'::text, 'failed'::text])) = (finished_at IS NOT NULL))),
    CONSTRAINT notifications_event_check CHECK ((jsonb_typeof(event) = 'object'::text)),
    CONSTRAINT notifications_event_type_check CHECK ((event_type = ANY (ARRAY['attemptFailed'::text, 'consecutiveFailures'::text, 'deadlineMissed'::text, 'jobCompleted'::text, 'jobFaulted'::text, 'missed'::text, 'monitorFailed'::text, 'monitorMissed'::text, 'monitorRecovered'::text, 'occurrenceFaulted'::text, 'recovered'::text, 'slowRun'::text, 'test'::text]))),
    CONSTRAINT notifications_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'sending'::text, 'delivered'::text, 'failed'::text])))
);

-- Name: notifications_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.notifications ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.notifications_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: resource_groups; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.resource_groups (
    id bigint NOT NULL,
    workspace_id text NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT resource_groups_name_check CHECK ((name ~ '^[-\w\._\(\)]{1,90}$'::text))
);

-- Name: resource_groups_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.resource_groups ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_groups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL,
    applied_by text DEFAULT ''::text NOT NULL
);

-- Name: sessions; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.sessions (
    id bigint NOT NULL,
    token_hash bytea NOT NULL,
    user_id bigint NOT NULL,
    csrf_token text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_seen_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    remote_addr text DEFAULT ''::text NOT NULL,
    user_agent text DEFAULT ''::text NOT NULL,
    flash text DEFAULT ''::text NOT NULL,
    CONSTRAINT sessions_check CHECK ((last_seen_at >= created_at)),
    CONSTRAINT sessions_check1 CHECK ((expires_at > created_at)),
    CONSTRAINT sessions_csrf_token_check CHECK (((length(csrf_token) >= 32) AND (length(csrf_token) <= 128))),
    CONSTRAINT sessions_flash_check CHECK ((length(flash) <= 4000)),
    CONSTRAINT sessions_remote_addr_check CHECK ((length(remote_addr) <= 64)),
    CONSTRAINT sessions_token_hash_check CHECK ((length(token_hash) = 32)),
    CONSTRAINT sessions_user_agent_check CHECK ((length(user_agent) <= 512))
);

-- Name: sessions_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.sessions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.sessions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: setup_codes; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.setup_codes (
    code_hash bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT setup_codes_code_hash_check CHECK ((length(code_hash) = 32))
);

-- Name: target_limits; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.target_limits (
    workspace_id text NOT NULL,
    host text NOT NULL,
    max_concurrent integer,
    max_per_second integer,
    second_at timestamp with time zone,
    second_starts integer DEFAULT 0 NOT NULL,
    longest_wait_ms bigint,
    longest_wait_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT target_limits_check CHECK (((max_concurrent IS NOT NULL) OR (max_per_second IS NOT NULL))),
    CONSTRAINT target_limits_host_check CHECK (((host <> ''::text) AND (host = lower(host)) AND (length(host) <= 261))),
    CONSTRAINT target_limits_max_concurrent_check CHECK (((max_concurrent >= 1) AND (max_concurrent <= 100000))),
    CONSTRAINT target_limits_max_per_second_check CHECK (((max_per_second >= 1) AND (max_per_second <= 100000)))
);

-- Name: user_identities; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.user_identities (
    issuer text NOT NULL,
    subject text NOT NULL,
    user_id bigint NOT NULL,
    email text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_sign_in_at timestamp with time zone NOT NULL,
    CONSTRAINT user_identities_email_check CHECK ((length(email) <= 320)),
    CONSTRAINT user_identities_issuer_check CHECK (((length(issuer) >= 1) AND (length(issuer) <= 2048))),
    CONSTRAINT user_identities_subject_check CHECK (((length(subject) >= 1) AND (length(subject) <= 255)))
);

-- Name: users; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.users (
    id bigint NOT NULL,
    username text NOT NULL,
    password_hash text NOT NULL,
    is_admin boolean DEFAULT false NOT NULL,
    disabled boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    time_zone text DEFAULT 'UTC'::text NOT NULL,
    CONSTRAINT users_time_zone_length CHECK (((length(time_zone) >= 1) AND (length(time_zone) <= 64))),
    CONSTRAINT users_username_check CHECK ((username ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$'::text))
);

-- Name: users_id_seq; Type: SEQUENCE; Schema: public; Owner: -

ALTER TABLE public.users ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

-- Name: workspaces; Type: TABLE; Schema: public; Owner: -

CREATE TABLE public.workspaces (
    id text NOT NULL,
    display_name text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT workspaces_id_check CHECK ((id ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,89}$'::text))
);

-- Name: job_history_default; Type: TABLE ATTACH; Schema: public; Owner: -

ALTER TABLE ONLY public.job_history ATTACH PARTITION public.job_history_default DEFAULT;

-- Name: job_history_details_default; Type: TABLE ATTACH; Schema: public; Owner: -

ALTER TABLE ONLY public.job_history_details ATTACH PARTITION public.job_history_details_default DEFAULT;

-- Name: audit_entries id; Type: DEFAULT; Schema: public; Owner: -

ALTER TABLE ONLY public.audit_entries ALTER COLUMN id SET DEFAULT nextval('public.audit_entries_id_seq'::regclass);

-- Name: alert_rules alert_rules_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_pkey PRIMARY KEY (id);

-- Name: api_tokens api_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_pkey PRIMARY KEY (id);

-- Name: api_tokens api_tokens_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_token_hash_key UNIQUE (token_hash);

-- Name: audit_entries audit_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.audit_entries
    ADD CONSTRAINT audit_entries_pkey PRIMARY KEY (id);

-- Name: backfill_runs backfill_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.backfill_runs
    ADD CONSTRAINT backfill_runs_pkey PRIMARY KEY (backfill_id, expected_time);

-- Name: backfills backfills_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.backfills
    ADD CONSTRAINT backfills_pkey PRIMARY KEY (id);

-- Name: calendars calendars_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.calendars
    ADD CONSTRAINT calendars_pkey PRIMARY KEY (id);

-- Name: channels channels_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_pkey PRIMARY KEY (id);

-- Name: collection_job_counts collection_job_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collection_job_counts
    ADD CONSTRAINT collection_job_counts_pkey PRIMARY KEY (job_collection_id);

-- Name: collection_signing collection_signing_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collection_signing
    ADD CONSTRAINT collection_signing_pkey PRIMARY KEY (job_collection_id);

-- Name: engine_instances engine_instances_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.engine_instances
    ADD CONSTRAINT engine_instances_pkey PRIMARY KEY (id);

-- Name: history_hours history_hours_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.history_hours
    ADD CONSTRAINT history_hours_pkey PRIMARY KEY (workspace_id, hour, status, slot);

-- Name: job_attempts job_attempts_job_id_expected_time_action_attempt_key; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_attempts
    ADD CONSTRAINT job_attempts_job_id_expected_time_action_attempt_key UNIQUE (job_id, expected_time, action, attempt);

-- Name: job_attempts job_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_attempts
    ADD CONSTRAINT job_attempts_pkey PRIMARY KEY (id);

-- Name: job_collections job_collections_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_collections
    ADD CONSTRAINT job_collections_pkey PRIMARY KEY (id);

-- Name: job_deadlines job_deadlines_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_deadlines
    ADD CONSTRAINT job_deadlines_pkey PRIMARY KEY (job_id, expected_time);

-- Name: job_facets job_facets_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_facets
    ADD CONSTRAINT job_facets_pkey PRIMARY KEY (job_id);

-- Name: job_results job_results_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_results
    ADD CONSTRAINT job_results_pkey PRIMARY KEY (job_id);

-- Name: job_slow_runs job_slow_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_slow_runs
    ADD CONSTRAINT job_slow_runs_pkey PRIMARY KEY (attempt_id);

-- Name: job_trigger_causes job_trigger_causes_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_trigger_causes
    ADD CONSTRAINT job_trigger_causes_pkey PRIMARY KEY (downstream_id, expected_time, upstream_id);

-- Name: job_trigger_ends job_trigger_ends_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_trigger_ends
    ADD CONSTRAINT job_trigger_ends_pkey PRIMARY KEY (id);

-- Name: job_trigger_upstreams job_trigger_upstreams_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_trigger_upstreams
    ADD CONSTRAINT job_trigger_upstreams_pkey PRIMARY KEY (downstream_id, upstream_id);

-- Name: job_trigger_waits job_trigger_waits_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_trigger_waits
    ADD CONSTRAINT job_trigger_waits_pkey PRIMARY KEY (downstream_id, upstream_id);

-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);

-- Name: memberships memberships_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_pkey PRIMARY KEY (workspace_id, user_id);

-- Name: monitor_occurrences monitor_occurrences_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitor_occurrences
    ADD CONSTRAINT monitor_occurrences_pkey PRIMARY KEY (monitor_id, expected_at);

-- Name: monitor_pings monitor_pings_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitor_pings
    ADD CONSTRAINT monitor_pings_pkey PRIMARY KEY (id);

-- Name: monitor_throttles monitor_throttles_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitor_throttles
    ADD CONSTRAINT monitor_throttles_pkey PRIMARY KEY (rule_id, monitor_id);

-- Name: monitors monitors_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitors
    ADD CONSTRAINT monitors_pkey PRIMARY KEY (id);

-- Name: monitors monitors_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitors
    ADD CONSTRAINT monitors_token_hash_key UNIQUE (token_hash);

-- Name: notification_throttles notification_throttles_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notification_throttles
    ADD CONSTRAINT notification_throttles_pkey PRIMARY KEY (rule_id, job_id);

-- Name: notifications notifications_event_id_key; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_event_id_key UNIQUE (event_id);

-- Name: notifications notifications_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_pkey PRIMARY KEY (id);

-- Name: resource_groups resource_groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.resource_groups
    ADD CONSTRAINT resource_groups_pkey PRIMARY KEY (id);

-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);

-- Name: setup_codes setup_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.setup_codes
    ADD CONSTRAINT setup_codes_pkey PRIMARY KEY (code_hash);

-- Name: target_limits target_limits_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.target_limits
    ADD CONSTRAINT target_limits_pkey PRIMARY KEY (workspace_id, host);

-- Name: user_identities user_identities_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.user_identities
    ADD CONSTRAINT user_identities_pkey PRIMARY KEY (issuer, subject);

-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

-- Name: workspaces workspaces_pkey; Type: CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.workspaces
    ADD CONSTRAINT workspaces_pkey PRIMARY KEY (id);

-- Name: alert_rules_channel_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX alert_rules_channel_idx ON public.alert_rules USING btree (channel_id);

-- Name: alert_rules_created_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX alert_rules_created_by_idx ON public.alert_rules USING btree (created_by) WHERE (created_by IS NOT NULL);

-- Name: alert_rules_updated_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX alert_rules_updated_by_idx ON public.alert_rules USING btree (updated_by) WHERE (updated_by IS NOT NULL);

-- Name: alert_rules_workspace_name_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX alert_rules_workspace_name_key ON public.alert_rules USING btree (workspace_id, lower(name));

-- Name: api_tokens_user_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX api_tokens_user_id_idx ON public.api_tokens USING btree (user_id);

-- Name: audit_entries_action_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX audit_entries_action_idx ON public.audit_entries USING btree (workspace_id, action, id DESC);

-- Name: audit_entries_actor_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX audit_entries_actor_idx ON public.audit_entries USING btree (workspace_id, actor_name, id DESC);

-- Name: audit_entries_at_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX audit_entries_at_idx ON public.audit_entries USING btree (at);

-- Name: audit_entries_resource_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX audit_entries_resource_idx ON public.audit_entries USING btree (workspace_id, resource text_pattern_ops, id DESC);

-- Name: audit_entries_workspace_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX audit_entries_workspace_idx ON public.audit_entries USING btree (workspace_id, id DESC);

-- Name: backfill_runs_open_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX backfill_runs_open_key ON public.backfill_runs USING btree (job_id, expected_time) WHERE (state = ANY (ARRAY['queued'::text, 'started'::text]));

-- Name: backfill_runs_started_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX backfill_runs_started_idx ON public.backfill_runs USING btree (backfill_id) WHERE (state = 'started'::text);

-- Name: backfill_runs_state_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX backfill_runs_state_idx ON public.backfill_runs USING btree (backfill_id, state, expected_time);

-- Name: backfills_job_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX backfills_job_idx ON public.backfills USING btree (job_id, id DESC);

-- Name: backfills_running_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX backfills_running_idx ON public.backfills USING btree (id) WHERE (state = 'running'::text);

-- Name: calendars_created_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX calendars_created_by_idx ON public.calendars USING btree (created_by) WHERE (created_by IS NOT NULL);

-- Name: calendars_updated_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX calendars_updated_by_idx ON public.calendars USING btree (updated_by) WHERE (updated_by IS NOT NULL);

-- Name: calendars_workspace_name_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX calendars_workspace_name_key ON public.calendars USING btree (workspace_id, lower(name));

-- Name: channels_created_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX channels_created_by_idx ON public.channels USING btree (created_by) WHERE (created_by IS NOT NULL);

-- Name: channels_updated_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX channels_updated_by_idx ON public.channels USING btree (updated_by) WHERE (updated_by IS NOT NULL);

-- Name: channels_workspace_name_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX channels_workspace_name_key ON public.channels USING btree (workspace_id, lower(name));

-- Name: collection_signing_created_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX collection_signing_created_by_idx ON public.collection_signing USING btree (created_by) WHERE (created_by IS NOT NULL);

-- Name: collection_signing_updated_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX collection_signing_updated_by_idx ON public.collection_signing USING btree (updated_by) WHERE (updated_by IS NOT NULL);

-- Name: engine_instances_heartbeat_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX engine_instances_heartbeat_idx ON public.engine_instances USING btree (heartbeat_at);

-- Name: job_attempts_pending_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_attempts_pending_idx ON public.job_attempts USING btree (due_at) INCLUDE (job_id) WHERE (status = 'pending'::text);

-- Name: job_attempts_running_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_attempts_running_idx ON public.job_attempts USING btree (lease_expires_at) WHERE (status = 'running'::text);

-- Name: job_attempts_target_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_attempts_target_idx ON public.job_attempts USING btree (target_workspace, target_host, status, due_at, id) WHERE (target_host IS NOT NULL);

-- Name: job_collections_group_name_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX job_collections_group_name_key ON public.job_collections USING btree (resource_group_id, lower(name));

-- Name: job_deadlines_decided_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_deadlines_decided_idx ON public.job_deadlines USING btree (decided_at) WHERE (decided_at IS NOT NULL);

-- Name: job_deadlines_open_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_deadlines_open_idx ON public.job_deadlines USING btree (deadline_at) WHERE (decided_at IS NULL);

-- Name: job_facets_calendar_excludes_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_facets_calendar_excludes_idx ON public.job_facets USING gin (calendar_excludes) WHERE (calendar_excludes IS NOT NULL);

-- Name: job_facets_search_trgm_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_facets_search_trgm_idx ON public.job_facets USING gin (search public.gin_trgm_ops);

-- Name: job_facets_time_zone_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_facets_time_zone_idx ON public.job_facets USING btree (lower(time_zone));

-- Name: job_history_id_start_idx; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX job_history_id_start_idx ON ONLY public.job_history USING btree (id, start_time);

-- Name: job_history_default_id_start_time_idx; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX job_history_default_id_start_time_idx ON public.job_history_default USING btree (id, start_time);

-- Name: job_history_occurrence_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_occurrence_idx ON ONLY public.job_history USING btree (job_id, expected_execution_time);

-- Name: job_history_default_job_id_expected_execution_time_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_default_job_id_expected_execution_time_idx ON public.job_history_default USING btree (job_id, expected_execution_time);

-- Name: job_history_job_start_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_job_start_idx ON ONLY public.job_history USING btree (job_id, start_time DESC, id DESC);

-- Name: job_history_default_job_id_start_time_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_default_job_id_start_time_id_idx ON public.job_history_default USING btree (job_id, start_time DESC, id DESC);

-- Name: job_history_job_status_start_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_job_status_start_idx ON ONLY public.job_history USING btree (job_id, status, start_time DESC, id DESC);

-- Name: job_history_default_job_id_status_start_time_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_default_job_id_status_start_time_id_idx ON public.job_history_default USING btree (job_id, status, start_time DESC, id DESC);

-- Name: job_history_running_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_running_idx ON ONLY public.job_history USING btree (lease_expires_at) WHERE (status = 'Running'::text);

-- Name: job_history_default_lease_expires_at_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_default_lease_expires_at_idx ON public.job_history_default USING btree (lease_expires_at) WHERE (status = 'Running'::text);

-- Name: job_history_failed_start_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_failed_start_idx ON ONLY public.job_history USING btree (start_time DESC, id DESC) WHERE (status = 'Failed'::text);

-- Name: job_history_default_start_time_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_default_start_time_id_idx ON public.job_history_default USING btree (start_time DESC, id DESC) WHERE (status = 'Failed'::text);

-- Name: job_history_start_brin; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_start_brin ON ONLY public.job_history USING brin (start_time);

-- Name: job_history_default_start_time_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_history_default_start_time_idx ON public.job_history_default USING brin (start_time);

-- Name: job_history_details_history_start_idx; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX job_history_details_history_start_idx ON ONLY public.job_history_details USING btree (history_id, start_time);

-- Name: job_history_details_default_history_id_start_time_idx; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX job_history_details_default_history_id_start_time_idx ON public.job_history_details_default USING btree (history_id, start_time);

-- Name: job_results_failures_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_results_failures_idx ON public.job_results USING btree (failure_count, job_id);

-- Name: job_results_last_failed_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_results_last_failed_idx ON public.job_results USING btree (last_failed_at) WHERE (last_failed_at IS NOT NULL);

-- Name: job_results_last_status_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_results_last_status_idx ON public.job_results USING btree (last_status, job_id);

-- Name: job_slow_runs_job_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_slow_runs_job_idx ON public.job_slow_runs USING btree (job_id, raised_at DESC);

-- Name: job_slow_runs_raised_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_slow_runs_raised_idx ON public.job_slow_runs USING btree (raised_at);

-- Name: job_trigger_causes_upstream_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_trigger_causes_upstream_idx ON public.job_trigger_causes USING btree (upstream_history_id);

-- Name: job_trigger_ends_downstream_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_trigger_ends_downstream_idx ON public.job_trigger_ends USING btree (downstream_id, id);

-- Name: job_trigger_upstreams_upstream_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX job_trigger_upstreams_upstream_idx ON public.job_trigger_upstreams USING btree (upstream_id);

-- Name: jobs_collection_due_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX jobs_collection_due_idx ON public.jobs USING btree (job_collection_id, next_run_at) WHERE ((state = 'enabled'::text) AND (next_run_at IS NOT NULL));

-- Name: jobs_collection_name_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX jobs_collection_name_key ON public.jobs USING btree (job_collection_id, lower((name)::text));

-- Name: jobs_due_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX jobs_due_idx ON public.jobs USING btree (next_run_at) INCLUDE (job_collection_id) WHERE ((state = 'enabled'::text) AND (next_run_at IS NOT NULL));

-- Name: jobs_ended_at_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX jobs_ended_at_idx ON public.jobs USING btree (ended_at) WHERE (ended_at IS NOT NULL);

-- Name: jobs_last_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX jobs_last_id_idx ON public.jobs USING btree (COALESCE(last_run_at, '-infinity'::timestamp with time zone), id);

-- Name: jobs_name_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX jobs_name_id_idx ON public.jobs USING btree (lower((name)::text), id);

-- Name: jobs_needs_schedule_enabled_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX jobs_needs_schedule_enabled_idx ON public.jobs USING btree (id) WHERE (needs_schedule AND (state = 'enabled'::text));

-- Name: jobs_needs_schedule_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX jobs_needs_schedule_idx ON public.jobs USING btree (id) WHERE needs_schedule;

-- Name: jobs_next_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX jobs_next_id_idx ON public.jobs USING btree (COALESCE(next_run_at, 'infinity'::timestamp with time zone), id);

-- Name: jobs_state_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX jobs_state_idx ON public.jobs USING btree (state) WHERE (state <> 'enabled'::text);

-- Name: memberships_user_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX memberships_user_id_idx ON public.memberships USING btree (user_id);

-- Name: monitor_pings_monitor_at_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX monitor_pings_monitor_at_idx ON public.monitor_pings USING btree (monitor_id, at);

-- Name: monitor_throttles_digest_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX monitor_throttles_digest_idx ON public.monitor_throttles USING btree (digest_id) WHERE (digest_id IS NOT NULL);

-- Name: monitor_throttles_monitor_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX monitor_throttles_monitor_idx ON public.monitor_throttles USING btree (monitor_id);

-- Name: monitor_throttles_window_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX monitor_throttles_window_idx ON public.monitor_throttles USING btree (window_until);

-- Name: monitors_created_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX monitors_created_by_idx ON public.monitors USING btree (created_by) WHERE (created_by IS NOT NULL);

-- Name: monitors_updated_by_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX monitors_updated_by_idx ON public.monitors USING btree (updated_by) WHERE (updated_by IS NOT NULL);

-- Name: monitors_workspace_name_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX monitors_workspace_name_key ON public.monitors USING btree (workspace_id, lower(name));

-- Name: notification_throttles_digest_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notification_throttles_digest_idx ON public.notification_throttles USING btree (digest_id) WHERE (digest_id IS NOT NULL);

-- Name: notification_throttles_job_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notification_throttles_job_idx ON public.notification_throttles USING btree (job_id);

-- Name: notification_throttles_window_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notification_throttles_window_idx ON public.notification_throttles USING btree (window_until);

-- Name: notifications_channel_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notifications_channel_idx ON public.notifications USING btree (channel_id, id DESC);

-- Name: notifications_finished_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notifications_finished_idx ON public.notifications USING btree (finished_at) WHERE (finished_at IS NOT NULL);

-- Name: notifications_job_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notifications_job_idx ON public.notifications USING btree (job_id) WHERE (job_id IS NOT NULL);

-- Name: notifications_monitor_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notifications_monitor_idx ON public.notifications USING btree (monitor_id) WHERE (monitor_id IS NOT NULL);

-- Name: notifications_pending_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notifications_pending_idx ON public.notifications USING btree (next_attempt_at) WHERE (status = 'pending'::text);

-- Name: notifications_rule_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notifications_rule_idx ON public.notifications USING btree (rule_id) WHERE (rule_id IS NOT NULL);

-- Name: notifications_sending_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notifications_sending_idx ON public.notifications USING btree (lease_expires_at) WHERE (status = 'sending'::text);

-- Name: notifications_workspace_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX notifications_workspace_idx ON public.notifications USING btree (workspace_id, id DESC);

-- Name: resource_groups_workspace_name_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX resource_groups_workspace_name_key ON public.resource_groups USING btree (workspace_id, lower(name));

-- Name: sessions_expires_at_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX sessions_expires_at_idx ON public.sessions USING btree (expires_at);

-- Name: sessions_last_seen_at_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX sessions_last_seen_at_idx ON public.sessions USING btree (last_seen_at);

-- Name: sessions_token_hash_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX sessions_token_hash_key ON public.sessions USING btree (token_hash);

-- Name: sessions_user_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX sessions_user_id_idx ON public.sessions USING btree (user_id, last_seen_at DESC);

-- Name: user_identities_user_id_idx; Type: INDEX; Schema: public; Owner: -

CREATE INDEX user_identities_user_id_idx ON public.user_identities USING btree (user_id);

-- Name: users_username_key; Type: INDEX; Schema: public; Owner: -

CREATE UNIQUE INDEX users_username_key ON public.users USING btree (lower(username));

-- Name: job_history_default_id_start_time_idx; Type: INDEX ATTACH; Schema: public; Owner: -

ALTER INDEX public.job_history_id_start_idx ATTACH PARTITION public.job_history_default_id_start_time_idx;

-- Name: job_history_default_job_id_expected_execution_time_idx; Type: INDEX ATTACH; Schema: public; Owner: -

ALTER INDEX public.job_history_occurrence_idx ATTACH PARTITION public.job_history_default_job_id_expected_execution_time_idx;

-- Name: job_history_default_job_id_start_time_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -

ALTER INDEX public.job_history_job_start_idx ATTACH PARTITION public.job_history_default_job_id_start_time_id_idx;

-- Name: job_history_default_job_id_status_start_time_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -

ALTER INDEX public.job_history_job_status_start_idx ATTACH PARTITION public.job_history_default_job_id_status_start_time_id_idx;

-- Name: job_history_default_lease_expires_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -

ALTER INDEX public.job_history_running_idx ATTACH PARTITION public.job_history_default_lease_expires_at_idx;

-- Name: job_history_default_start_time_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -

ALTER INDEX public.job_history_failed_start_idx ATTACH PARTITION public.job_history_default_start_time_id_idx;

-- Name: job_history_default_start_time_idx; Type: INDEX ATTACH; Schema: public; Owner: -

ALTER INDEX public.job_history_start_brin ATTACH PARTITION public.job_history_default_start_time_idx;

-- Name: job_history_details_default_history_id_start_time_idx; Type: INDEX ATTACH; Schema: public; Owner: -

ALTER INDEX public.job_history_details_history_start_idx ATTACH PARTITION public.job_history_details_default_history_id_start_time_idx;

-- Name: audit_entries audit_entries_append_only; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER audit_entries_append_only BEFORE DELETE OR UPDATE ON public.audit_entries FOR EACH ROW EXECUTE FUNCTION public.audit_entries_append_only();

-- Name: audit_entries audit_entries_no_truncate; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON public.audit_entries FOR EACH STATEMENT EXECUTE FUNCTION public.audit_entries_append_only();

-- Name: job_collections job_collections_notify; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER job_collections_notify AFTER UPDATE OF state ON public.job_collections FOR EACH ROW WHEN (((new.state = 'Enabled'::text) AND (old.state <> 'Enabled'::text))) EXECUTE FUNCTION public.job_collections_notify();

-- Name: jobs jobs_abandon; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER jobs_abandon AFTER UPDATE OF state ON public.jobs FOR EACH ROW WHEN (((old.state = 'enabled'::text) AND (new.state <> 'enabled'::text))) EXECUTE FUNCTION public.jobs_abandon();

-- Name: jobs jobs_schedule; Type: TRIGGER; Schema: public; Owner: -

CREATE TRIGGER jobs_schedule BEFORE INSERT OR UPDATE OF definition, state ON public.jobs FOR EACH ROW EXECUTE FUNCTION public.jobs_schedule();

-- Name: alert_rules alert_rules_channel_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES public.channels(id) ON DELETE RESTRICT;

-- Name: alert_rules alert_rules_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: alert_rules alert_rules_updated_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_updated_by_fkey FOREIGN KEY (updated_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: alert_rules alert_rules_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.alert_rules
    ADD CONSTRAINT alert_rules_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id) ON DELETE CASCADE;

-- Name: api_tokens api_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

-- Name: backfill_runs backfill_runs_backfill_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.backfill_runs
    ADD CONSTRAINT backfill_runs_backfill_id_fkey FOREIGN KEY (backfill_id) REFERENCES public.backfills(id) ON DELETE CASCADE;

-- Name: backfills backfills_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.backfills
    ADD CONSTRAINT backfills_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: calendars calendars_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.calendars
    ADD CONSTRAINT calendars_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: calendars calendars_updated_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.calendars
    ADD CONSTRAINT calendars_updated_by_fkey FOREIGN KEY (updated_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: calendars calendars_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.calendars
    ADD CONSTRAINT calendars_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id) ON DELETE CASCADE;

-- Name: channels channels_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: channels channels_updated_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_updated_by_fkey FOREIGN KEY (updated_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: channels channels_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id) ON DELETE CASCADE;

-- Name: collection_job_counts collection_job_counts_job_collection_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collection_job_counts
    ADD CONSTRAINT collection_job_counts_job_collection_id_fkey FOREIGN KEY (job_collection_id) REFERENCES public.job_collections(id) ON DELETE CASCADE;

-- Name: collection_signing collection_signing_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collection_signing
    ADD CONSTRAINT collection_signing_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: collection_signing collection_signing_job_collection_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collection_signing
    ADD CONSTRAINT collection_signing_job_collection_id_fkey FOREIGN KEY (job_collection_id) REFERENCES public.job_collections(id) ON DELETE CASCADE;

-- Name: collection_signing collection_signing_updated_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.collection_signing
    ADD CONSTRAINT collection_signing_updated_by_fkey FOREIGN KEY (updated_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: history_hours history_hours_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.history_hours
    ADD CONSTRAINT history_hours_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id) ON DELETE CASCADE;

-- Name: job_attempts job_attempts_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_attempts
    ADD CONSTRAINT job_attempts_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: job_collections job_collections_resource_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_collections
    ADD CONSTRAINT job_collections_resource_group_id_fkey FOREIGN KEY (resource_group_id) REFERENCES public.resource_groups(id) ON DELETE CASCADE;

-- Name: job_deadlines job_deadlines_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_deadlines
    ADD CONSTRAINT job_deadlines_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: job_facets job_facets_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_facets
    ADD CONSTRAINT job_facets_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: job_history job_history_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE public.job_history
    ADD CONSTRAINT job_history_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: job_results job_results_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_results
    ADD CONSTRAINT job_results_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: job_slow_runs job_slow_runs_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_slow_runs
    ADD CONSTRAINT job_slow_runs_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: job_trigger_causes job_trigger_causes_downstream_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_trigger_causes
    ADD CONSTRAINT job_trigger_causes_downstream_id_fkey FOREIGN KEY (downstream_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: job_trigger_upstreams job_trigger_upstreams_downstream_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_trigger_upstreams
    ADD CONSTRAINT job_trigger_upstreams_downstream_id_fkey FOREIGN KEY (downstream_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: job_trigger_waits job_trigger_waits_downstream_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.job_trigger_waits
    ADD CONSTRAINT job_trigger_waits_downstream_id_fkey FOREIGN KEY (downstream_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: jobs jobs_job_collection_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_job_collection_id_fkey FOREIGN KEY (job_collection_id) REFERENCES public.job_collections(id) ON DELETE CASCADE;

-- Name: memberships memberships_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

-- Name: memberships memberships_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id) ON DELETE CASCADE;

-- Name: monitor_occurrences monitor_occurrences_monitor_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitor_occurrences
    ADD CONSTRAINT monitor_occurrences_monitor_id_fkey FOREIGN KEY (monitor_id) REFERENCES public.monitors(id) ON DELETE CASCADE;

-- Name: monitor_pings monitor_pings_monitor_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitor_pings
    ADD CONSTRAINT monitor_pings_monitor_id_fkey FOREIGN KEY (monitor_id) REFERENCES public.monitors(id) ON DELETE CASCADE;

-- Name: monitor_throttles monitor_throttles_digest_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitor_throttles
    ADD CONSTRAINT monitor_throttles_digest_id_fkey FOREIGN KEY (digest_id) REFERENCES public.notifications(id) ON DELETE SET NULL;

-- Name: monitor_throttles monitor_throttles_monitor_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitor_throttles
    ADD CONSTRAINT monitor_throttles_monitor_id_fkey FOREIGN KEY (monitor_id) REFERENCES public.monitors(id) ON DELETE CASCADE;

-- Name: monitor_throttles monitor_throttles_rule_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitor_throttles
    ADD CONSTRAINT monitor_throttles_rule_id_fkey FOREIGN KEY (rule_id) REFERENCES public.alert_rules(id) ON DELETE CASCADE;

-- Name: monitors monitors_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitors
    ADD CONSTRAINT monitors_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: monitors monitors_updated_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitors
    ADD CONSTRAINT monitors_updated_by_fkey FOREIGN KEY (updated_by) REFERENCES public.users(id) ON DELETE SET NULL;

-- Name: monitors monitors_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.monitors
    ADD CONSTRAINT monitors_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id) ON DELETE CASCADE;

-- Name: notification_throttles notification_throttles_digest_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notification_throttles
    ADD CONSTRAINT notification_throttles_digest_id_fkey FOREIGN KEY (digest_id) REFERENCES public.notifications(id) ON DELETE SET NULL;

-- Name: notification_throttles notification_throttles_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notification_throttles
    ADD CONSTRAINT notification_throttles_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;

-- Name: notification_throttles notification_throttles_rule_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notification_throttles
    ADD CONSTRAINT notification_throttles_rule_id_fkey FOREIGN KEY (rule_id) REFERENCES public.alert_rules(id) ON DELETE CASCADE;

-- Name: notifications notifications_channel_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES public.channels(id) ON DELETE SET NULL;

-- Name: notifications notifications_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE SET NULL;

-- Name: notifications notifications_monitor_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_monitor_id_fkey FOREIGN KEY (monitor_id) REFERENCES public.monitors(id) ON DELETE SET NULL;

-- Name: notifications notifications_rule_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_rule_id_fkey FOREIGN KEY (rule_id) REFERENCES public.alert_rules(id) ON DELETE SET NULL;

-- Name: notifications notifications_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id) ON DELETE CASCADE;

-- Name: resource_groups resource_groups_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.resource_groups
    ADD CONSTRAINT resource_groups_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id) ON DELETE CASCADE;

-- Name: sessions sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

-- Name: target_limits target_limits_workspace_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.target_limits
    ADD CONSTRAINT target_limits_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES public.workspaces(id) ON DELETE CASCADE;

-- Name: user_identities user_identities_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -

ALTER TABLE ONLY public.user_identities
    ADD CONSTRAINT user_identities_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
