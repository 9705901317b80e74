-- bulkhead's wrk report: answers by status class and second, by route when the script before this one gave each
-- thread a route (bulkhead_assign), and wrk's latency histogram as 1,000 quantiles. Read by
-- bulkhead.lab.load.WrkDriver. Each wrk thread counts in its own Lua state; done() sums them.
local bulkhead_threads = {}

function setup(thread)
  table.insert(bulkhead_threads, thread)
  if type(bulkhead_assign) == "function" then bulkhead_assign(thread) end
end

bulkhead_counts = {}
bulkhead_classes = {}

function response(status, headers, body)
  local class = math.floor(status / 100)
  local key = os.time() * 10 + class
  bulkhead_counts[key] = (bulkhead_counts[key] or 0) + 1
  bulkhead_classes[class] = (bulkhead_classes[class] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  local routes = {}
  for _, t in ipairs(bulkhead_threads) do
    local counts = t:get("bulkhead_counts")
    for k, n in pairs(counts) do total[k] = (total[k] or 0) + n end
    local route = t:get("bulkhead_route")
    if route then
      routes[route] = routes[route] or {}
      for class, n in pairs(t:get("bulkhead_classes")) do routes[route][class] = (routes[route][class] or 0) + n end
    end
  end
  for k, n in pairs(total) do
    io.write(string.format("bulkhead-answers %d %d %d\n", math.floor(k / 10), k % 10, n))
  end
  for route, classes in pairs(routes) do
    for class, n in pairs(classes) do
      io.write(string.format("bulkhead-route %d %d %d\n", route, class, n))
    end
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
