-- wrk script of the service-ordering benchmark (bench/run.ts, bench/loadgen.ts).
--
-- Arguments (after `--`): REQUESTS_FILE START THREADS
--   REQUESTS_FILE  one request per line: METHOD<TAB>PATH<TAB>AUTHORIZATION<TAB>BODY
--                  (AUTHORIZATION and BODY may be empty; a body is sent as application/json)
--   START          index of the first request to send (0-based); the list is cycled from there,
--                  so successive runs of a write scenario (moves) go on instead of repeating
--   THREADS        the -t given to wrk (thread i sends requests START+i, START+i+THREADS, ...)
-- Environment, read when the script loads (wrk decides from the main Lua state which hooks exist):
--   BENCH_DYNAMIC=0         the file holds one request: wrk sends it without calling into Lua
--   BENCH_COUNT_STATUSES=1  count responses per status code (wrk then parses every response)
--
-- At the end one line is printed for bench/loadgen.ts:
--   BENCH_RESULT {"requests":…,"duration_us":…,"p50_us":…,…,"sent":…,"statuses":{"200":…}}

local lines = {}
local cursor = 0
local step = 1
statuses = {}
sent = 0

local threads = {}

function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

local function split(line)
  local fields = {}
  local start = 1
  while true do
    local tab = string.find(line, "\t", start, true)
    if tab == nil then
      table.insert(fields, string.sub(line, start))
      return fields
    end
    table.insert(fields, string.sub(line, start, tab - 1))
    start = tab + 1
  end
end

function init(args)
  local file = assert(io.open(args[1], "r"), "cannot open " .. tostring(args[1]))
  local first = nil
  for line in file:lines() do
    if line ~= "" then
      local f = split(line)
      local headers = {}
      if f[3] ~= nil and f[3] ~= "" then headers["Authorization"] = f[3] end
      local body = f[4]
      if body == "" then body = nil end
      if body ~= nil then headers["Content-Type"] = "application/json" end
      if first == nil then first = { method = f[1], path = f[2], headers = headers, body = body } end
      table.insert(lines, wrk.format(f[1], f[2], headers, body))
    end
  end
  file:close()
  assert(first ~= nil, "no requests in " .. args[1])
  step = tonumber(args[3] or "1") or 1
  cursor = (tonumber(args[2] or "0") or 0) + (thread_index or 0)
  -- Static mode: after init, wrk formats one request from these fields and repeats it.
  wrk.method = first.method
  wrk.path = first.path
  for k, v in pairs(first.headers) do wrk.headers[k] = v end
  wrk.body = first.body
end

if os.getenv("BENCH_DYNAMIC") ~= "0" then
  function request()
    local r = lines[(cursor % #lines) + 1]
    cursor = cursor + step
    sent = sent + 1
    return r
  end
end

if os.getenv("BENCH_COUNT_STATUSES") == "1" then
  function response(status, headers, body)
    local key = tostring(status)
    statuses[key] = (statuses[key] or 0) + 1
  end
end

function done(summary, latency, requests)
  local merged = {}
  local total_sent = 0
  for _, thread in ipairs(threads) do
    local s = thread:get("statuses")
    if type(s) == "table" then
      for k, v in pairs(s) do merged[k] = (merged[k] or 0) + v end
    end
    total_sent = total_sent + (tonumber(thread:get("sent")) or 0)
  end
  local parts = {}
  for k, v in pairs(merged) do table.insert(parts, string.format('"%s":%d', k, v)) end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,"max_us":%d,"mean_us":%.1f,"sent":%d,"non2xx":%d,"socket_errors":%d,"timeouts":%d,"statuses":{%s}}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.max, latency.mean, total_sent, e.status, e.connect + e.read + e.write, e.timeout,
    table.concat(parts, ",")))
end
