"""Schemathesis hooks for test/fuzz/openapi-fuzz.test.ts.

An app sends a fresh Idempotency-Key for each logical request (the document says so: "Fresh UUID per logical
request"). Generated cases can repeat a key with another body, which the service rightly refuses (422
idempotency-key-reused); each call here gets its own key instead, as an app's would.

The run's own session must outlive it: a case that would revoke the fuzzing device (DELETE /v1/account/devices/{id}
with its own id, which Schemathesis can learn from answers) revokes a random device instead (404), as signing out and
closing the account are left out of the run.
"""
import os
import uuid

import schemathesis


def _is_uuid(value):
    try:
        uuid.UUID(str(value))
        return True
    except ValueError:
        return False


@schemathesis.hook("map_headers")
def fresh_idempotency_key(ctx, headers):
    # Only a key that is valid data is renewed: a case that leaves it out or malforms it on purpose stays as it is.
    for name, value in list((headers or {}).items()):
        if name.lower() == "idempotency-key" and isinstance(value, str) and _is_uuid(value):
            headers[name] = str(uuid.uuid4())
    return headers


OWN_DEVICE_ID = os.environ.get("FUZZ_OWN_DEVICE_ID")


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if OWN_DEVICE_ID and (case.path_parameters or {}).get("deviceId") == OWN_DEVICE_ID:
        case.path_parameters["deviceId"] = str(uuid.uuid4())
    # The coverage phase's cases do not pass through map_headers: renew the key there too, in positive cases only
    # (a negative case keeps every header as generated, so what it leaves out stays left out).
    meta = case.meta
    if meta is None or meta.generation.mode.is_negative:
        return None
    for name, value in list((case.headers or {}).items()):
        if name.lower() == "idempotency-key" and isinstance(value, str) and _is_uuid(value):
            case.headers[name] = str(uuid.uuid4())
    return None
