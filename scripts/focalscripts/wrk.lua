-- The one wrk script: `make bench-serve`, `make bench-cluster` and the cluster's fault test
-- (Tests/cluster) all run it, through focalscripts/wrk.py, which writes the path list, sets the
-- variables below and reads the result.
--
--   [WRK_PORTS=P1,P2] [WRK_COUNT=1] wrk -t T -c C -d 20s --latency \
--       -s scripts/focalscripts/wrk.lua http://127.0.0.1:PORT -- PATHS T
--
-- PATHS is a file of request paths, one a line. Thread i of T sends paths i+1, i+1+T, i+1+2T, ...
-- in order, so no two threads send the same path and a path is sent again only after the thread
-- has gone through all of its own (a "wrap", counted: with a list longer than the run, every
-- request is distinct).
--
-- WRK_PORTS: thread i connects to 127.0.0.1 on port number (i mod the number of ports) of that
-- list instead of PORT: one thread per server instance.
--
-- WRK_COUNT=1: response() counts, per thread, the answers by status, by replica
-- (X-Focal-Backend), by cache state (X-Cache), and those that Varnish answered only after a retry
-- on another replica (X-Focal-Retries). Off unless asked: wrk hands every answer's headers to Lua
-- only when the script defines response(), which costs throughput.
--
-- done() prints one JSON line on stdout, after wrk's own report: {"wrk":1,"requests":...}.

local threads = {}
local next_id = 0
local ports = {}
for port in string.gmatch(os.getenv("WRK_PORTS") or "", "%d+") do
   table.insert(ports, port)
end
local counting = os.getenv("WRK_COUNT") == "1"

function setup(thread)
   thread:set("id", next_id)
   if #ports > 0 then
      local addrs = wrk.lookup("127.0.0.1", ports[next_id % #ports + 1])
      assert(addrs and addrs[1], "cannot resolve 127.0.0.1:" .. ports[next_id % #ports + 1])
      thread.addr = addrs[1]
   end
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
   sent = 0
   wraps = 0
   statuses = {}
   backends = {}
   caches = {}
   retried = 0
   answers = 0
end

function request()
   local path = paths[position]
   position = position + 1
   if position > #paths then
      position = 1
      wraps = wraps + 1
   end
   sent = sent + 1
   return wrk.format("GET", path)
end

local function bump(t, k)
   t[k] = (t[k] or 0) + 1
end

if counting then
   function response(status, headers, body)
      answers = answers + 1
      bump(statuses, tostring(status))
      bump(backends, headers["X-Focal-Backend"] or "-")
      bump(caches, headers["X-Cache"] or "-")
      if headers["X-Focal-Retries"] then
         retried = retried + 1
      end
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
   local sent, wraps = 0, 0
   local s, b, c, r, a = {}, {}, {}, 0, 0
   for _, thread in ipairs(threads) do
      sent = sent + (thread:get("sent") or 0)
      wraps = wraps + (thread:get("wraps") or 0)
      if counting then
         merge(s, thread:get("statuses"))
         merge(b, thread:get("backends"))
         merge(c, thread:get("caches"))
         r = r + (thread:get("retried") or 0)
         a = a + (thread:get("answers") or 0)
      end
   end
   local e = summary.errors
   io.write(string.format(
      '{"wrk":1,"requests":%d,"duration_us":%d,"bytes":%d,' ..
      '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"http_errors":%d,"timeouts":%d,' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,"sent":%d,"wraps":%d',
      summary.requests, summary.duration, summary.bytes,
      e.connect, e.read, e.write, e.status, e.timeout,
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
      latency.mean, sent, wraps))
   if counting then
      io.write(string.format(',"answers":%d,"retried":%d,"statuses":%s,"backends":%s,"caches":%s',
         a, r, object(s), object(b), object(c)))
   end
   io.write("}\n")
end
