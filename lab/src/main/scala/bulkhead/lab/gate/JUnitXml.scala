package bulkhead.lab.gate

/**
 * The gate's result as a JUnit XML report, the format CI servers read (Jenkins, GitLab, GitHub's test reporters):
 * one `testcase` per case and check (`classname` the case, `name` the check), a `failure` with the reason on a failed
 * check, `skipped` on a check not compared. The cases found in one run only are in `system-out`.
 */
object JUnitXml:
  val SuiteName = "bulkhead lab gate"

  def render(result: GateResult, properties: Seq[(String, String)] = Nil): String =
    val failures = result.failures.size
    val skipped = result.checks.count(_.outcome == Outcome.Skipped)
    val counts = s"""tests="${result.checks.size}" failures="$failures" errors="0" skipped="$skipped""""
    val props =
      if properties.isEmpty then ""
      else properties.map((k, v) => s"""      <property name="${escape(k)}" value="${escape(v)}"/>""")
        .mkString("    <properties>\n", "\n", "\n    </properties>\n")
    val cases = result.checks.map { c =>
      val open = s"""    <testcase classname="${escape(c.caseLabel)}" name="${escape(c.check.key)}" time="0""""
      c.outcome match
        case Outcome.Pass => s"$open>\n      <system-out>${escape(c.why)}</system-out>\n    </testcase>"
        case Outcome.Fail =>
          s"""$open>\n      <failure message="${escape(c.why)}" type="${escape(c.check.key)}">""" +
            s"${escape(s"${c.caseLabel}: ${c.check.key}: ${c.why}")}</failure>\n    </testcase>"
        case Outcome.Skipped => s"""$open>\n      <skipped message="${escape(c.why)}"/>\n    </testcase>"""
    }
    val notCompared = result.lines.drop(result.checks.size)
    val out = if notCompared.isEmpty then "" else s"    <system-out>${escape(notCompared.mkString("\n"))}</system-out>\n"
    s"""<?xml version="1.0" encoding="UTF-8"?>
       |<testsuites name="$SuiteName" $counts>
       |  <testsuite name="$SuiteName" $counts time="0">
       |$props${cases.mkString("\n")}
       |$out  </testsuite>
       |</testsuites>
       |""".stripMargin

  /** Text and attribute values: the five XML entities, and no character XML 1.0 refuses. */
  def escape(s: String): String = s.flatMap {
    case '&' => "&amp;"
    case '<' => "&lt;"
    case '>' => "&gt;"
    case '"' => "&quot;"
    case '\'' => "&apos;"
    case c if c < ' ' && c != '\n' && c != '\t' && c != '\r' => ""
    case c => c.toString
  }
