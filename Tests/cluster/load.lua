-- wrk script for the cluster's fault test: rotates over a list of paths and counts every answer.
--
--   wrk -t T -c C -d 30s -s Tests/cluster/load.lua http://127.0.0.1:PORT -- PATHS T
--
-- Thread i of T sends paths i+1, i+1+T, ... in order (threads never share a path). response()
-- counts, per thread, the answers by status, by replica (X-Focal-Backend), by cache state
-- (X-Cache) and those that Varnish had to retry on another replica (X-Focal-Retries). done()
-- prints one JSON line, after wrk's own report, that adds wrk's own error counts.

local threads = {}
local next_id = 0

function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
   table.insert(threads, thread)
end

local paths = {}
local position = 1

function init(args)
   local file = assert(args[1], "usage: -- PATHS THREADS")
   local count = tonumber(args[2] or "1")
   local index = 0
   for line in io.lines(file) do
      if line ~= "" then
         if index % count == id then
            table.insert(paths, line)
         end
         index = index + 1
      end
   end
   assert(#paths > 0, "no paths for thread " .. id .. " in " .. file)
   statuses = {}
   backends = {}
   caches = {}
   retried = 0
   answers = 0
end

function request()
   local path = paths[position]
   position = position % #paths + 1
   return wrk.format("GET", path)
end

local function bump(t, k)
   t[k] = (t[k] or 0) + 1
end

function response(status, headers, body)
   answers = answers + 1
   bump(statuses, tostring(status))
   bump(backends, headers["X-Focal-Backend"] or "-")
   bump(caches, headers["X-Cache"] or "-")
   if headers["X-Focal-Retries"] then
      retried = retried + 1
   end
end

local function merge(into, from)
   for k, v in pairs(from or {}) do
      into[k] = (into[k] or 0) + v
   end
end

local function object(t)
   local parts = {}
   for k, v in pairs(t) do
      table.insert(parts, string.format('"%s":%d', k, v))
   end
   return "{" .. table.concat(parts, ",") .. "}"
end

function done(summary, latency, requests)
   local s, b, c, r, a = {}, {}, {}, 0, 0
   for _, thread in ipairs(threads) do
      merge(s, thread:get("statuses"))
      merge(b, thread:get("backends"))
      merge(c, thread:get("caches"))
      r = r + (thread:get("retried") or 0)
      a = a + (thread:get("answers") or 0)
   end
   local e = summary.errors
   io.write(string.format(
      '{"cluster_load":1,"requests":%d,"answers":%d,"duration_us":%d,"connect_errors":%d,' ..
      '"read_errors":%d,"write_errors":%d,"status_errors":%d,"timeouts":%d,"retried":%d,' ..
      '"p50_us":%d,"p99_us":%d,"max_us":%d,"statuses":%s,"backends":%s,"caches":%s}\n',
      summary.requests, a, summary.duration, e.connect, e.read, e.write, e.status, e.timeout, r,
      latency:percentile(50), latency:percentile(99), latency.max, object(s), object(b), object(c)))
end
