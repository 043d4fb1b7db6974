"""Verifies a webhook delivery (Standard Webhooks): an HMAC-SHA256 signature over
"<webhook-id>.<webhook-timestamp>.<body>" with the key's ``whsec_`` secret, any of the
space-separated signatures (a rotation's grace period signs with both secrets), and a
timestamp no more than five minutes from now."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Mapping, Optional, Union, cast

from .errors import WebhookVerificationError
from .types import WebhookPayload

TOLERANCE_S = 300


def verify_webhook(body: Union[str, bytes], headers: Mapping[str, str], secret: str, *,
                   now: Optional[float] = None) -> WebhookPayload:
    lower = {k.lower(): v for k, v in headers.items()}
    msg_id, stamp, signatures = lower.get("webhook-id"), lower.get("webhook-timestamp"), lower.get("webhook-signature")
    if not msg_id or not stamp or not signatures:
        raise WebhookVerificationError("webhook did not verify: missing webhook-id, webhook-timestamp or webhook-signature",
                                       code="INVALID_SIGNATURE")
    try:
        sent_at = int(stamp)
    except ValueError:
        raise WebhookVerificationError("webhook did not verify: bad timestamp", code="INVALID_SIGNATURE") from None
    if abs((time.time() if now is None else now) - sent_at) > TOLERANCE_S:
        raise WebhookVerificationError("webhook did not verify: timestamp too old or too new", code="INVALID_SIGNATURE")
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{sent_at}.{text}".encode("utf-8"), hashlib.sha256).digest()).decode()
    for candidate in signatures.split(" "):
        version, _, value = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return cast(WebhookPayload, json.loads(text))
    raise WebhookVerificationError("webhook did not verify: no matching signature", code="INVALID_SIGNATURE")
