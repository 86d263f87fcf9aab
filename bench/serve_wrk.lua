-- wrk's script for bench/serve_bench.py --client wrk: POSTs one request
-- body to one path on every connection and prints the cell as a line
-- "WRKJSON {...}". An answer other than the expected one is kept (up to 8
-- distinct ones, each written to PDLITE_WRK_OTHERS .. i) for the benchmark
-- to check against the reference with a tolerance: a batched run or a GPU
-- may differ from the expected answer in the last bits.
-- Environment: PDLITE_WRK_PATH (the URL path), PDLITE_WRK_BODY (a file
-- with the body), PDLITE_WRK_HEADERS (a file of "Name: value" lines),
-- PDLITE_WRK_EXPECT (a file with the expected answer), PDLITE_WRK_OTHERS
-- (where the other answers go).

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

-- Per thread (each has its own Lua state); gathered in done().
failed = 0  -- not 200, or past the 8 distinct answers kept
others = {}  -- distinct answers other than the expected one
other_counts = {}  -- how many of each
function response(status, headers, body)
  if status ~= 200 then
    failed = failed + 1
    return
  end
  if body == expect then
    return
  end
  for i, other in ipairs(others) do
    if other == body then
      other_counts[i] = other_counts[i] + 1
      return
    end
  end
  if #others < 8 then
    table.insert(others, body)
    table.insert(other_counts, 1)
  else
    failed = failed + 1
  end
end

function done(summary, latency, requests)
  local f, counts = 0, {}
  for _, t in ipairs(threads) do
    f = f + t:get("failed")
    local bodies, n = t:get("others"), t:get("other_counts")
    for i, body in ipairs(bodies) do
      local out = assert(io.open(os.getenv("PDLITE_WRK_OTHERS") ..
                                 (#counts + 1), "wb"))
      out:write(body)
      out:close()
      table.insert(counts, tostring(n[i]))
    end
  end
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests": %d, "duration_us": %d, "p50_us": %d, ' ..
    '"p99_us": %d, "failed": %d, "other_answers": [%s], ' ..
    '"socket_errors": %d}\n',
    summary.requests, summary.duration, latency:percentile(50),
    latency:percentile(99), f, table.concat(counts, ", "),
    e.connect + e.read + e.write + e.timeout))
end
