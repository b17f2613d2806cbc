-- wrk's side of MODE=wrk: the request the suite's HTTP ping sends, POST /echo with a body of N bytes
-- (the argument after `--`, SIZE in a sweep; 64 by default), so that both clients ask the pong the same.
-- By hand: wrk -t1 -c50 -d10 --latency -s sweepkit/wrk_echo.lua http://127.0.0.1:PORT/echo -- 64
-- No response() or done(): a Lua callback per reply would slow wrk, and its report is what the sweep reads.
wrk.method = "POST"
wrk.path = "/echo"
wrk.body = string.rep("x", 64)

function init(args)
  -- wrk formats its request after init, so the body set here is the one sent
  local size = tonumber(args[1] or "64")
  if size == nil or size < 0 then
    error("wrk_echo.lua: the body size after -- must be a number of bytes, not " .. tostring(args[1]))
  end
  wrk.body = string.rep("x", size)
end
