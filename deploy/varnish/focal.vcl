vcl 4.1;
# Varnish 7.1 in front of several `focal serve` replicas: one cache for all of them.
#
# - Every size of one photo goes to the same replica (shard director keyed by the IMAGE part of
#   the thumbor-style URL), so a photo is decoded and detected once in the whole cluster; when
#   that replica is sick the next one on the hash ring takes its photos.
# - Results are cached for every replica; identical misses wait for one fetch (Varnish's waiting
#   list); stale results are served while a background fetch refreshes them (grace).
# - Replicas are probed on /readyz; an idempotent request whose replica fails (refused, reset,
#   timed out, 503, 429) is retried on the next replica of the ring.
# - A successful PUT or DELETE of a saved crop (/v1/images/{id}/overrides/{aspect}) purges every
#   cached result tagged `xkey: {id}` before its answer reaches the client. `PURGE` with an `xkey`
#   header from `focal_purgers` does the same for other tools (or other Varnish nodes).
# - Errors are never cached, except 404s for 10 s. On image URLs `Accept` is reduced to the image
#   types Focal may choose by (image/avif, image/webp, both or nothing; q=0 refuses) before lookup, so
#   `Vary: Accept` keeps a few variants, not one per browser.
# - Focal reads the path of image URLs, never their query string: Varnish drops it before lookup,
#   so `?cb=1`, `?cb=2`, ... are one object and cannot fill the cache.
# - What Focal would refuse anyway and is cheap to tell is refused here with a JSON error like
#   Focal's (`{"status", "code", "message"}`): other methods (405), URLs over 8 KiB (414), control
#   characters, raw or percent-encoded (400), a percent-encoded signature or a zero-padded size
#   in a signed URL (400 `request.not_canonical`: one spelling per URL; Focal redirects an unsafe
#   one, and the 308 is kept). `/metrics` is never served to clients (404): scrape
#   each replica directly.
#
# The backends come from `backends.vcl` (found on varnishd's vcl_path, e.g. /etc/varnish): one
# `backend` per replica with `.probe = focal_ready`, and `sub focal_add_backends` adding each one
# to `focal`. See backends.example.vcl; `make cluster` writes its own.

import directors;
import std;
import var;
import xkey;

# Who may send `PURGE` with an `xkey: <image id>` header.
acl focal_purgers {
    "127.0.0.1";
    "::1";
}

# A replica is healthy while 2 of its last 3 probes answered 200 within 2 s; it starts healthy.
# /readyz answers 503 until the models are loaded and while the replica's job queue is full.
probe focal_ready {
    .url = "/readyz";
    .expected_response = 200;
    .interval = 1s;
    .timeout = 2s;
    .window = 3;
    .threshold = 2;
    .initial = 2;
}

sub vcl_init {
    new focal = directors.shard();
    call focal_add_backends;
    focal.reconfigure();
}

# After vcl_init, which creates the director its sub fills in.
include "backends.vcl";

# The IMAGE part of a URL in thumbor's grammar (the same order of optional parts as
# Sources/FocalServer/ThumborURL.swift; each part may be absent):
#
#   ^/[^/]+/                                signature or "unsafe"
#   (?:meta/)?
#   (?:\d+x\d+:\d+x\d+/)?                   manual crop AxB:CxD
#   (?:(?:adaptive-)?(?:full-)?fit-in/)?
#   (?:-?(?:\d+|orig)?x-?(?:\d+|orig)?/)?   size, flips
#   (?:(?:left|center|right)/)?
#   (?:(?:top|middle|bottom)/)?
#   (?:smart/)?
#   (?:filters:(?:[^/]*/)*?[^/]*\)/)?       filters, which may hold slashes: up to the first part
#                                           that ends in ")"
#   ([^?]+)                                 IMAGE: path, id:<sha256> or (encoded) URL; no query
#
# It is written out in vcl_recv (VCL has no string constants for regexes).

sub vcl_recv {
    # Headers this VCL uses internally are never taken from the client.
    unset req.http.X-Focal-Shard;
    unset req.http.X-Focal-Kind;
    unset req.http.X-Focal-Purge;
    unset req.http.X-Focal-Code;
    unset req.http.X-Cache;

    # Refused before anything else, with the error code Focal would answer (see vcl_synth).
    if (req.method !~ "^(GET|HEAD|POST|PUT|DELETE|OPTIONS|PURGE)$") {
        set req.http.X-Focal-Code = "request.invalid";
        return (synth(405, "method not allowed"));
    }
    if (req.url ~ "^.{8193}") {
        set req.http.X-Focal-Code = "request.too_large";
        return (synth(414, "the URL is longer than 8 KiB"));
    }
    # Varnish's own parser refuses raw control bytes in the request line; percent-encoded ones
    # (%00-%1F, %7F) would reach Focal's decoder.
    if (req.url ~ "[\x00-\x1f\x7f]|%(?:[01][0-9A-Fa-f]|7[Ff])") {
        set req.http.X-Focal-Code = "request.invalid";
        return (synth(400, "the URL holds a control character"));
    }
    # One spelling per URL, as Focal refuses them (docs/limits.md, Security): a percent-encoded signature,
    # a size with a leading zero in a signed URL (an unsafe one is Focal's 308 to its one
    # spelling, kept below). Each would be another cache object for the same image.
    if (req.url ~ "^/[^/?]*%[^/?]*/") {
        set req.http.X-Focal-Code = "request.not_canonical";
        return (synth(400, "the signature is percent-encoded; send it as it was made"));
    }
    if (req.url ~ "^/(?!unsafe/)[^/?]+/(?:meta/)?(?:\d+x\d+:\d+x\d+/)?(?:(?:adaptive-)?(?:full-)?fit-in/)?(?:-?0\d+x-?(?:\d+|orig)?|-?(?:\d+|orig)?x-?0\d+)/") {
        set req.http.X-Focal-Code = "request.not_canonical";
        return (synth(400, "a size has a leading zero; write it without one"));
    }
    # The replicas' metrics are scraped from each replica, never through the cache.
    if (req.url ~ "^/metrics(?:[/?]|$)") {
        set req.http.X-Focal-Code = "request.not_found";
        return (synth(404, "no such route"));
    }

    if (req.method == "PURGE") {
        if (client.ip !~ focal_purgers) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.xkey) {
            set req.http.X-Focal-Code = "request.invalid";
            return (synth(400, "PURGE needs an xkey header naming image ids"));
        }
        set req.http.X-Focal-Purge = std.tolower(req.http.xkey);
        call focal_purge;
        return (synth(200, "Purged " + req.http.X-Focal-Purged));
    }

    # Saved crops: never cached. A PUT or DELETE is remembered so that vcl_deliver can purge
    # the image's results once the replica has answered with success.
    if (req.url ~ "^/v1/images/[0-9A-Fa-f]{64}/overrides(/|$|\?)") {
        if ((req.method == "PUT" || req.method == "DELETE") && req.url ~ "^/v1/images/[0-9A-Fa-f]{64}/overrides/[^/?]+") {
            set req.http.X-Focal-Purge = std.tolower(regsub(req.url, "^/v1/images/([0-9A-Fa-f]{64})/.*$", "\1"));
        }
        set req.http.X-Focal-Shard = req.url;
        return (pass);
    }

    # Focal reads only the path of image URLs and originals (it routes and parses the path):
    # their query string goes, for lookup and for the replica alike. The rest of the API, the
    # probes and the page's files (one path segment: /, /app.js) keep theirs.
    if (req.url ~ "\?" && req.url ~ "^/[^/?]*/"
        && (req.url ~ "^/v1/images/[0-9A-Fa-f]{64}\?" || req.url !~ "^/(?:v1|healthz|readyz)/")) {
        set req.url = regsub(req.url, "\?.*$", "");
    }

    set req.http.X-Focal-Shard = regsub(req.url, "\?.*$", "");
    set req.backend_hint = focal.backend(resolve=LAZY);
    if (std.healthy(req.backend_hint)) {
        # Past its TTL, a result is served for up to 10 s more while a fresh one is fetched.
        set req.grace = 10s;
    }

    # Uploads, plans, detections, signing, preflights: straight to a replica.
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # Originals by id are immutable and cacheable; the rest of the API and the probes are not.
    if (req.url ~ "^/v1/images/[0-9A-Fa-f]{64}(\?|$)") {
        set req.http.X-Focal-Kind = "original";
        # The replica that serves `id:<sha256>` images also serves their original.
        set req.http.X-Focal-Shard = "id:" + std.tolower(regsub(req.url, "^/v1/images/([0-9A-Fa-f]{64}).*$", "\1"));
        unset req.http.Cookie;
        unset req.http.Authorization;
        return (hash);
    }
    if (req.url ~ "^/(v1/|healthz|readyz)") {
        return (pass);
    }

    if (req.url ~ "^/[^/]+/(?:meta/)?(?:\d+x\d+:\d+x\d+/)?(?:(?:adaptive-)?(?:full-)?fit-in/)?(?:-?(?:\d+|orig)?x-?(?:\d+|orig)?/)?(?:(?:left|center|right)/)?(?:(?:top|middle|bottom)/)?(?:smart/)?(?:filters:(?:[^/]*/)*?[^/]*\)/)?[^?]+") {
        set req.http.X-Focal-Shard = regsub(req.url,
            "^/[^/]+/(?:meta/)?(?:\d+x\d+:\d+x\d+/)?(?:(?:adaptive-)?(?:full-)?fit-in/)?(?:-?(?:\d+|orig)?x-?(?:\d+|orig)?/)?(?:(?:left|center|right)/)?(?:(?:top|middle|bottom)/)?(?:smart/)?(?:filters:(?:[^/]*/)*?[^/]*\)/)?([^?]+).*$",
            "\1");
        set req.http.X-Focal-Kind = "image";
        # Focal uses neither cookies nor credentials on image URLs: they must not defeat the cache.
        unset req.http.Cookie;
        unset req.http.Authorization;
        # Accept, as far as Focal chooses by it (the automatic format, --auto-format and
        # --auto-webp): AVIF when it names image/avif, WebP when it names image/webp, each unless
        # refused with q=0, as Focal reads it. Reduced to those names (AVIF first; both kept, so
        # that an output too large for AVIF still goes out as WebP) or nothing: at most four
        # variants under Vary: Accept, not one per browser.
        if (req.http.Accept ~ "(?i)image/avif" && req.http.Accept !~ "(?i)image/avif\s*;\s*q\s*=\s*0(\.0*)?\s*(,|$)") {
            set req.http.X-Focal-Avif = "1";
        }
        if (req.http.Accept ~ "(?i)image/webp" && req.http.Accept !~ "(?i)image/webp\s*;\s*q\s*=\s*0(\.0*)?\s*(,|$)") {
            set req.http.X-Focal-Webp = "1";
        }
        if (req.http.X-Focal-Avif) {
            if (req.http.X-Focal-Webp) {
                set req.http.Accept = "image/avif,image/webp";
            } else {
                set req.http.Accept = "image/avif";
            }
        } elsif (req.http.X-Focal-Webp) {
            set req.http.Accept = "image/webp";
        } else {
            unset req.http.Accept;
        }
        unset req.http.X-Focal-Avif;
        unset req.http.X-Focal-Webp;
    }
    return (hash);
}

sub vcl_hash {
    # One cache for every host name the service is reached by.
    hash_data(req.url);
    return (lookup);
}

sub vcl_hit {
    if (obj.ttl >= 0s) {
        set req.http.X-Cache = "HIT";
    } else {
        set req.http.X-Cache = "HIT-STALE";
    }
}

sub vcl_miss {
    set req.http.X-Cache = "MISS";
}

sub vcl_pass {
    set req.http.X-Cache = "PASS";
}

sub vcl_backend_fetch {
    # The replica for this image; on the n-th retry the n-th healthy alternative on the ring.
    set bereq.backend = focal.backend(by=KEY, key=focal.key(bereq.http.X-Focal-Shard),
        alt=bereq.retries, healthy=ALL);
    set bereq.connect_timeout = 1s;
    # Above `focal serve`'s own request timeout (30 s by default), so that its 503 arrives.
    set bereq.first_byte_timeout = 60s;
    set bereq.between_bytes_timeout = 30s;
    unset bereq.http.X-Focal-Purge;
    unset bereq.http.X-Cache;
}

sub vcl_backend_response {
    set beresp.http.X-Focal-Backend = beresp.backend.name;
    if (bereq.retries > 0) {
        # How many replicas failed before this one answered.
        set beresp.http.X-Focal-Retries = bereq.retries;
    }

    # Not ready (503) or full (429): an idempotent request tries the next replica once.
    if ((beresp.status == 503 || beresp.status == 429) && bereq.retries < 1
        && (bereq.method == "GET" || bereq.method == "HEAD")) {
        return (retry);
    }
    # A background refresh that failed keeps the stale result instead.
    if (beresp.status >= 500 && bereq.is_bgfetch) {
        return (abandon);
    }
    # Passed requests (API, writes, probes): delivered as they are, never stored.
    if (bereq.uncacheable) {
        return (deliver);
    }
    if (beresp.status == 404) {
        # A missing source may appear (an upload): remembered for 10 s only.
        set beresp.ttl = 10s;
        set beresp.grace = 0s;
        set beresp.keep = 0s;
        return (deliver);
    }
    if (beresp.status == 308) {
        # Another spelling of an unsafe URL: Focal's permanent redirect to the one spelling that
        # alone is rendered and holds the image. A spelling's redirect never changes: kept a day
        # (Varnish 7.1 takes no TTL from a 308's Cache-Control), purged by no xkey.
        set beresp.ttl = 1d;
        set beresp.grace = 0s;
        set beresp.keep = 0s;
        return (deliver);
    }
    if (beresp.status != 200) {
        # Errors are never stored; the URL bypasses the waiting list for 1 s (hit-for-miss).
        set beresp.ttl = 1s;
        set beresp.grace = 0s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    if (beresp.http.xkey) {
        # A result whose fetch started before a purge of its image may hold the old crop (xkey
        # cannot purge an object still being fetched): deliver it to those waiting, keep it not.
        if (std.integer(var.global_get("focal-purged-" + regsub(beresp.http.xkey, "^\s*(..).*$", "\1")), 0)
            >= std.integer(real=(std.time2real(bereq.time, 0.0) - 1600000000.0) * 1000000.0, fallback=0)) {
            set beresp.ttl = 0s;
            set beresp.grace = 0s;
            set beresp.uncacheable = true;
            return (deliver);
        }
    } elsif (bereq.url ~ "^/[^/]+/meta/") {
        # meta/ JSON without an xkey cannot be purged when a crop is saved: not stored.
        set beresp.ttl = 0s;
        set beresp.uncacheable = true;
        return (deliver);
    } elsif (bereq.http.X-Focal-Kind == "image" && beresp.ttl > 60s) {
        # An image URL whose result carries no xkey (a remote source) cannot be purged either:
        # kept for a minute at most.
        set beresp.ttl = 60s;
    }
    if (bereq.http.X-Focal-Kind) {
        # Results and originals: stale copies may be served for a day while replicas are down
        # (vcl_recv limits that to 10 s while any replica is healthy).
        set beresp.grace = 24h;
        return (deliver);
    }
    # The page and its scripts: as their Cache-Control says (builtin rules).
}

sub vcl_backend_error {
    # The replica was refused, reset or timed out: the next healthy replica on the ring, for
    # idempotent requests, at most twice (three replicas tried).
    if ((bereq.method == "GET" || bereq.method == "HEAD") && bereq.retries < 2) {
        return (retry);
    }
    if (bereq.is_bgfetch) {
        return (abandon);
    }
    set beresp.http.Content-Type = "application/json";
    set beresp.http.Cache-Control = "no-store";
    set beresp.ttl = 0s;
    set beresp.grace = 0s;
    # (A {"..."} string ends at the first quote-brace, hence the closing brace apart.)
    set beresp.body = {"{"status":503,"code":"server.not_ready","message":"no replica could answer"} + {"""} + "}";
    return (deliver);
}

sub vcl_deliver {
    # A saved crop was written or deleted: purge every cached result of that image now, before
    # the client hears of the success (see focal_purge).
    if (req.http.X-Focal-Purge && resp.status >= 200 && resp.status < 300) {
        call focal_purge;
        set resp.http.X-Focal-Purged = req.http.X-Focal-Purged;
    }
    if (req.http.X-Cache) {
        set resp.http.X-Cache = req.http.X-Cache;
    }
    unset resp.http.xkey;
}

sub vcl_synth {
    if (req.method == "PURGE" || resp.status >= 400) {
        set resp.http.Content-Type = "application/json";
        set resp.http.Cache-Control = "no-store";
        if (req.http.X-Focal-Code) {
            # As Focal answers its own errors (ErrorResponse.swift): status, code, message.
            set resp.http.X-Focal-Error = req.http.X-Focal-Code;
            set resp.http.Access-Control-Allow-Origin = "*";
            set resp.body = {"{"status":"} + resp.status + {","code":""} + req.http.X-Focal-Code
                + {"","message":""} + resp.reason + {"""} + "}";
        } else {
            set resp.body = {"{"status":"} + resp.status + {","message":""} + resp.reason + {"""} + "}";
        }
        if (resp.status == 405) {
            set resp.http.Allow = "GET, HEAD, POST, PUT, DELETE, OPTIONS";
        }
        return (deliver);
    }
}

# Purges the results tagged with the ids in req.http.X-Focal-Purge, first noting the time (in
# microseconds since 2020-09-13: VCL integers stop at 10^15, std.real2integer at 10^12; `now` here is after the replica's answer, so after the write was committed) in the
# id's bucket (its first two hex digits: 256 global variables at most, only the first id of a
# list) so that vcl_backend_response refuses to store a result whose fetch began before it.
sub focal_purge {
    var.global_set("focal-purged-" + regsub(req.http.X-Focal-Purge, "^\s*(..).*$", "\1"),
        "" + std.integer(real=(std.time2real(now, 0.0) - 1600000000.0) * 1000000.0, fallback=0));
    set req.http.X-Focal-Purged = xkey.purge(req.http.X-Focal-Purge);
}
