-- bulkhead's wrk report: answers by status class and second, and wrk's latency histogram as 1,000 quantiles.
-- Read by bulkhead.lab.load.WrkDriver. Each wrk thread counts in its own Lua state; done() sums them.
local bulkhead_threads = {}

function setup(thread)
  table.insert(bulkhead_threads, thread)
end

bulkhead_counts = {}

function response(status, headers, body)
  local key = os.time() * 10 + math.floor(status / 100)
  bulkhead_counts[key] = (bulkhead_counts[key] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, t in ipairs(bulkhead_threads) do
    local counts = t:get("bulkhead_counts")
    for k, n in pairs(counts) do total[k] = (total[k] or 0) + n end
  end
  for k, n in pairs(total) do
    io.write(string.format("bulkhead-answers %d %d %d\n", math.floor(k / 10), k % 10, n))
  end
  local e = summary.errors
  io.write(string.format("bulkhead-summary %d %d %d %d %d %d %d\n", summary.duration, summary.requests,
    e.connect, e.read, e.write, e.status, e.timeout))
  for i = 1, 1000 do
    local p = (i - 0.5) / 10.0
    io.write(string.format("bulkhead-latency %.2f %d\n", p, latency:percentile(p)))
  end
  io.write(string.format("bulkhead-latency-max %d\n", latency.max))
end
