"""Signs requests with botocore's S3 Signature V4 signer, for Focal's signer to be compared with.

Reads a JSON list of requests on stdin, each {"method", "host", "path" (as sent, percent-encoded),
"query": [[name, value], ...] (not encoded), "headers": [[name, value], ...], "body" (text),
"date" ("20130524T000000Z"), "key", "secret", "token" (optional), "region"}; writes a JSON list
of the headers botocore adds (lower-case names: x-amz-*, authorization), in the same order.
Run with the pinned botocore of .cache/botocore-venv (scripts/setup.sh botocore).
"""
import datetime
import json
import sys
from unittest import mock

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def sign(case):
    when = datetime.datetime.strptime(case["date"], "%Y%m%dT%H%M%SZ")
    request = AWSRequest(
        method=case["method"],
        url=f"http://{case['host']}{case['path']}",
        headers=dict(case["headers"]),
        params=[tuple(pair) for pair in case["query"]],
        data=case["body"].encode("utf-8"),
    )
    request.headers["Host"] = case["host"]
    credentials = Credentials(case["key"], case["secret"], case.get("token"))
    with mock.patch("botocore.auth.get_current_datetime", return_value=when):
        S3SigV4Auth(credentials, "s3", case["region"]).add_auth(request)
    return {name.lower(): value for name, value in request.headers.items()
            if name.lower().startswith("x-amz-") or name.lower() == "authorization"}


if __name__ == "__main__":
    json.dump([sign(case) for case in json.load(sys.stdin)], sys.stdout)
