-- 0026_details_size: PostgreSQL's CPU per engine execution (issue 11).
--
-- job_history_details bounded request and response with
-- CHECK (octet_length(request::text) <= 65536): every insert serialised
-- both jsonb documents back to text only to measure them. The bound is
-- now their binary size, pg_column_size, which reads the length word of
-- the value (no serialisation). In a CHECK it sees the document as the
-- writer hands it, before compression and TOAST: the jsonb binary form,
-- which for these documents (objects of strings: method, URL, headers,
-- body) is about as long as the text form, shorter where the text escapes
-- characters. The bound stays 64 KiB; the engine's caps (models/
-- history_details.go: body 8 KiB, headers 8 KiB, URL 2 KiB) keep what it
-- stores far below it. On rows already stored pg_column_size gives the
-- stored (possibly compressed) size, never more than the binary size: the
-- rows the engine wrote under the old CHECKs pass the validation below (a
-- document of many small numbers, which no writer stores, could be
-- longer in binary than in text).
--
-- The new constraints are added NOT VALID and validated at once: the
-- migration runs in one transaction, so this gains no lock time, but the
-- validation reads only each value's length word (it does not detoast),
-- and the constraints end up valid like the ones they replace.
ALTER TABLE job_history_details
    DROP CONSTRAINT job_history_details_request_check,
    DROP CONSTRAINT job_history_details_response_check,
    ADD CONSTRAINT job_history_details_request_size CHECK (pg_column_size(request) <= 65536) NOT VALID,
    ADD CONSTRAINT job_history_details_response_size CHECK (pg_column_size(response) <= 65536) NOT VALID;
ALTER TABLE job_history_details VALIDATE CONSTRAINT job_history_details_request_size;
ALTER TABLE job_history_details VALIDATE CONSTRAINT job_history_details_response_size;
