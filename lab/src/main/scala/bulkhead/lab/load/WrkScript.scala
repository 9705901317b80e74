package bulkhead.lab.load

import java.nio.charset.StandardCharsets.UTF_8

/**
 * The Lua script wrk runs for a load's [[Requests]]: the routes as a table, each wrk thread given one of them in
 * `setup` (its method, path, headers and body set in `init`, so wrk sends it as a static request, at full speed), and
 * the lab's report (`wrk/answers.lua`): answers by status class and second, each route's answers (counted by the
 * thread that sent them: wrk's `response()` is not told which request it answers, but every request of a thread is
 * its route's), wrk's latency histogram. A route per thread means the threads are a multiple of the routes.
 */
object WrkScript:
  def apply(requests: Requests): String =
    val routes = requests.targets.map { r =>
      val headers = r.headers.groupMap(_._1)(_._2).toSeq.map((k, vs) => s"[${lua(k)}] = ${lua(vs.mkString(", "))}")
      val body = if r.body.isEmpty && !Request.BodyMethods(r.method) then "nil" else lua(r.body.toArray)
      s"  { method = ${lua(r.method)}, path = ${lua(r.target)}, headers = { ${headers.mkString(", ")} }, " +
        s"body = $body }"
    }
    s"""-- bulkhead's requests: one route per wrk thread (written by bulkhead.lab.load.WrkScript)
       |bulkhead_routes = {
       |${routes.mkString(",\n")}
       |}
       |local bulkhead_next = 0
       |
       |function bulkhead_assign(thread)
       |  thread:set("bulkhead_route", bulkhead_next % #bulkhead_routes + 1)
       |  bulkhead_next = bulkhead_next + 1
       |end
       |
       |function init(args)
       |  local r = bulkhead_routes[bulkhead_route]
       |  wrk.method = r.method
       |  wrk.path = r.path
       |  wrk.body = r.body
       |  for k, v in pairs(r.headers) do wrk.headers[k] = v end
       |end
       |
       |""".stripMargin + WrkDriver.report

  /** `s` as a Lua string literal: printable ASCII as is, every other byte as a decimal escape (`\\010`). */
  def lua(s: String): String = lua(s.getBytes(UTF_8))

  def lua(bytes: Array[Byte]): String =
    bytes.map { b =>
      val c = b & 0xff
      if c == '"' || c == '\\' then s"\\${c.toChar}"
      else if c >= 0x20 && c < 0x7f then c.toChar.toString
      else f"\\$c%03d"
    }.mkString("\"", "", "\"")
