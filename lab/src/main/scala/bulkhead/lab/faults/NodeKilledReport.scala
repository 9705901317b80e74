package bulkhead.lab.faults

import bulkhead.lab.report.{Environment, MarkdownTable}

import java.nio.file.{Files, Path}

/** The node-killed report: the checks, the cluster and the answers second by second, a timeline chart, the data. */
final case class NodeKilledReport(command: String, env: Environment, settings: NodeKilledSettings,
    record: NodeKilledRecord, loadAverage: String = "?"):
  val checks: Seq[Check] = NodeKilledVerdict.checks(record)
  def passed: Boolean = checks.forall(_.passed)

  def checkLines: String = checks.map(c => s"- ${if c.passed then "pass" else "**FAIL**"} ${c.name}: ${c.detail}")
    .mkString("\n")

  /** Per second: answers by status, members up / unreachable and the killed node's routees, as the front saw them. */
  def timeline: String =
    val r = record
    val statuses = r.run.seconds.flatMap(_.outcomes.keys).distinct.sorted
    val header = Seq("second", "phase") ++ statuses.map(_.label) ++
      Seq("members up", "unreachable", s"routees of ${r.killed}")
    val cluster = r.cluster.map(c => c.second -> c).toMap
    def f0(d: Option[Double]) = d.fold("-")(v => f"$v%.0f")
    val rows = r.run.seconds.map { s =>
      val phase = if s.second < r.killAt then "before" else if s.second < r.restartAt then "killed" else "restarted"
      val c = cluster.get(s.second)
      Seq(s.second.toString, phase) ++ statuses.map(k => s.outcomes.getOrElse(k, 0).toString) ++
        Seq(f0(c.flatMap(_.membersUp)), f0(c.flatMap(_.unreachable)),
          c.filter(_.scraped).fold("?")(x => f0(x.killedRoutees.orElse(Some(0)))))
    }
    MarkdownTable(header, rows)

  def markdown: String =
    val r = record
    s"""# bulkhead cluster faults: ${NodeKilled.Name}: ${if passed then "every check passed" else "SOME CHECKS FAILED"}
       |
       |Written by `$command`. Every figure below was measured in this run.
       |
       |${env.markdown}
       |- the machine's load average (1, 5, 15 min; other work shares it) at the start: $loadAverage
       |
       |Setup: a Pekko Cluster of ${r.nodes.size} service nodes on loopback (${r.nodes.mkString(", ")}; the first
       |is the front the users load), the blocking SOAP client on a work queue of ${settings.workQueue} threads per
       |node, the stub at ${settings.stubLatencyMs} ms, SOAP timeout ${settings.soapTimeout.toMillis / 1000.0} s (shipped);
       |${r.clients} closed-loop keep-alive users on /customers/{id}; bound ${f"${r.bound}%.0f"} req/s
       |(${r.boundWhat}). ${r.killed} was SIGKILLed at ${f"${r.killAt}%.1f"} s, started again (same cluster port)
       |at ${f"${r.restartAt}%.1f"} s; the load stopped at ${f"${r.run.endAt}%.1f"} s. Threads and heap of the nodes
       |that stayed up were read after a full GC before the kill and after the load stopped. "Within" counts to the
       |end of the first ${NodeKilledVerdict.WindowSeconds} s window with OK answers at
       |${f"${FaultVerdict.RecoveredShare * 100}%.0f"} % of the level asked for; for the (N-1)/N level the window starts
       |once the front's router no longer lists the dead node, for N/N once it lists the restarted node again.
       |
       |$checkLines
       |
       |![${NodeKilled.Name}](${NodeKilled.Name}.png) (data: [${NodeKilled.Name}.json](${NodeKilled.Name}.json),
       |[${NodeKilled.Name}-cluster.json](${NodeKilled.Name}-cluster.json))
       |
       |## Second by second
       |
       |@@TIMELINE@@
       |""".stripMargin.replace("@@TIMELINE@@", timeline)

  def write(dir: Path): Path =
    NodeKilledRecord.write(record, dir, NodeKilled.Name)
    FaultReport.chart(record.run, dir.resolve(s"${NodeKilled.Name}.png"))
    val file = dir.resolve("README.md")
    Files.writeString(file, markdown)
    file
