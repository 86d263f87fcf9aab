-- wrk's script for bench/serve_bench.py --client wrk: POSTs one request
-- body to one path on every connection, checks every answer against the
-- one expected, and prints the cell as a line "WRKJSON {...}".
-- Environment: PDLITE_WRK_PATH (the URL path), PDLITE_WRK_BODY (a file
-- with the body), PDLITE_WRK_HEADERS (a file of "Name: value" lines),
-- PDLITE_WRK_EXPECT (a file with the answer every request must get).

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

wrk.method = "POST"
wrk.path = os.getenv("PDLITE_WRK_PATH")
wrk.body = slurp(os.getenv("PDLITE_WRK_BODY"))
for line in slurp(os.getenv("PDLITE_WRK_HEADERS")):gmatch("[^\n]+") do
  local name, value = line:match("^([^:]+):%s*(.*)$")
  wrk.headers[name] = value
end
local expect = slurp(os.getenv("PDLITE_WRK_EXPECT"))

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

-- Per thread (each has its own Lua state); summed in done().
wrong = 0
function response(status, headers, body)
  if status ~= 200 or body ~= expect then
    wrong = wrong + 1
  end
end

function done(summary, latency, requests)
  local w = 0
  for _, t in ipairs(threads) do
    w = w + t:get("wrong")
  end
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests": %d, "duration_us": %d, "p50_us": %d, ' ..
    '"p99_us": %d, "wrong_answers": %d, "socket_errors": %d}\n',
    summary.requests, summary.duration, latency:percentile(50),
    latency:percentile(99), w,
    e.connect + e.read + e.write + e.timeout))
end
