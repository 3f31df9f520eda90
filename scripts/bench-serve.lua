-- wrk script for `make bench-serve` (scripts/bench-serve.py writes the path list).
--
--   [BENCH_SERVE_PORTS=P1,P2] wrk -t T -c C -d 20s --latency -s scripts/bench-serve.lua \
--       http://127.0.0.1:PORT -- PATHS T
--
-- PATHS is a file of request paths, one a line. Thread i of T sends paths i+1, i+1+T, i+1+2T, ...
-- in order, so no two threads send the same path and a path is sent again only after the thread
-- has gone through all of its own (a "wrap", counted: with a list longer than the run, every
-- request is distinct). With BENCH_SERVE_PORTS, thread i connects to 127.0.0.1 on port number
-- (i mod the number of ports) of that list instead of PORT: one thread per server instance.
-- done() prints one JSON line on stdout, after wrk's own report.

local threads = {}
local next_id = 0
local ports = {}
for port in string.gmatch(os.getenv("BENCH_SERVE_PORTS") or "", "%d+") do
   table.insert(ports, port)
end

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

function done(summary, latency, requests)
   local sent, wraps = 0, 0
   for _, thread in ipairs(threads) do
      sent = sent + (thread:get("sent") or 0)
      wraps = wraps + (thread:get("wraps") or 0)
   end
   local e = summary.errors
   io.write(string.format(
      '{"bench_serve":1,"requests":%d,"duration_us":%d,"bytes":%d,' ..
      '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"http_errors":%d,"timeouts":%d,' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,"sent":%d,"wraps":%d}\n',
      summary.requests, summary.duration, summary.bytes,
      e.connect, e.read, e.write, e.status, e.timeout,
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
      latency.mean, sent, wraps))
end
