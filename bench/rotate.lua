-- wrk script: rotates over the requests of a file, one per line as METHOD<TAB>PATH[<TAB>BODY], each thread
-- from its own offset, with the headers given by -H. Prints one JSON line of results when done.
local threads = {}
local count = 0

function setup(thread)
  thread:set("offset", count * 7919)
  count = count + 1
  table.insert(threads, thread)
end

function init(args)
  list = {}
  for line in io.lines(args[1]) do
    local method, path, body = line:match("^(%u+)\t([^\t]+)\t?(.*)$")
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    table.insert(list, wrk.format(method, path, headers, body ~= "" and body or nil))
  end
  index = offset
end

function request()
  index = index + 1
  return list[index % #list + 1]
end

function done(summary, latency)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"non2xx":%d,"socketErrors":%d,"timeouts":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status,
    e.connect + e.read + e.write, e.timeout))
end
