package bulkhead.lab.report

import bulkhead.lab.checks.{Check, FaultChecks, FaultRunChecks, GoodputChecks, HostileChecks, NodeFaultChecks,
  OverloadChecks, Recovery, RunChecks}
import bulkhead.lab.record.RequestOutcome
import bulkhead.lab.record.{FaultTimeline, OverloadStep, RunRecord}
import bulkhead.lab.sample.{Retained, Sample}

/**
 * The fault runs of a report (`lab faults`, `lab cluster-faults`), rendered from their records and their checks
 * ([[RunChecks]]): the fault matrix, each service's suite-wide checks, the overload ramp, the undersized pool in
 * each SOAP mode, a node killed second by second, and each run's checks; in Markdown, and as the HTML report's tables and charts.
 */
final class FaultsReport(val checks: RunChecks):
  import FaultsReport.*

  private val (killed, matrixRuns) = checks.runs.partition(_.record.fault.exists(_.nodeKill.isDefined))

  def passed: Boolean = checks.passed

  val matrixHeader: Seq[String] = Seq("mode", "fault", "answers by status", "no answer", "breaker", "back after",
    "threads before/after", "heap MB before/after", "/health slowest", "log bytes", "descriptors before/max/after",
    "verdict")

  def matrixRows: Seq[Seq[String]] = matrixRuns.map { c =>
    val t = FaultChecks.timeline(c.record)
    val unanswered = t.totals.filterNot(_.outcome.answered).groupMapReduce(_.outcome)(_.count)(_ + _).toSeq.sorted
      .map((o, n) => s"${o.word} $n")
    val breaker = c.checks.find(_.name.startsWith("circuit")).map(_.detail).getOrElse("-")
    Seq(t.mode, t.fault, statuses(t), if unanswered.isEmpty then "0" else unanswered.mkString(", "), breaker,
      FaultChecks.recoverySeconds(t).map(s => f"$s%.1f s").getOrElse("never"),
      s"${threads(t.before)} / ${threads(t.after)}", s"${heap(t.before)} / ${heap(t.after)}",
      t.watch.flatMap(_.healthWorstMs()).fold("-")(v => f"$v%.0f ms"), t.watch.fold("-")(w => f"${w.logBytes}%,d"),
      t.watch.fold("-")(w => s"${count(w.descriptorsBefore)} / ${count(w.descriptorsMax)} / " +
        count(w.descriptorsAfter)), verdictOf(c))
  }

  def matrix: String = MarkdownTable(matrixHeader, matrixRows)

  val rampHeader: Seq[String] = Seq("load", "users", "200/s", "503/s", "200 p50 / p99 ms", "503 p50 ms",
    "/hello max ms", "/health max ms", "no answer", "service cores", "machine busy")

  def rampRows(r: RunRecord): Seq[Seq[String]] = r.overload.toSeq.flatMap(_.steps).map { s =>
    val (cores, busy) = cpu(r, s)
    Seq(s"${s.factor}x", s.users.toString, f0(s.okPerSecond), f0(s.shedPerSecond),
      s"${OverloadChecks.ms(s.okP50Ms, 0)} / ${OverloadChecks.ms(s.okP99Ms, 0)}", OverloadChecks.ms(s.shedP50Ms, 1),
      OverloadChecks.ms(s.helloMaxMs, 0), OverloadChecks.ms(s.healthMaxMs, 0), s.unanswered.toString,
      cores.fold("-")(c => f"$c%.2f"), busy.fold("-")(b => f"${b * 100}%.0f %%"))
  }

  /** Every ramp's table, one after the other. */
  def rampTables: String = checks.ramps.map(c => MarkdownTable(rampHeader, rampRows(c.record))).mkString("\n\n")

  val undersizedHeader: Seq[String] = Seq("mode", "slots", "third party", "users", "cap /s", "200/s", "of the cap",
    "200", "503", "other", "200 p50 ms", "503 p50 / slowest ms", "third party peak", "breaker openings", "verdict")

  def undersizedRows: Seq[Seq[String]] = checks.undersized.flatMap(c => c.record.goodput.map { g =>
    val other = g.statuses.filterNot((s, _) => s == "200" || s == "503").toSeq.sorted.map((s, n) => s"$s $n")
    Seq(g.mode, g.slots.toString, f"${g.stubLatencyMs}%.0f ms", g.users.toString, f0(g.cap), f"${g.okPerSecond}%.2f",
      f"${g.okPerSecond / g.cap}%.2f", g.ok.toString, g.refused.toString, if other.isEmpty then "0" else
        other.mkString(", "), OverloadChecks.ms(g.okP50Ms, 0),
      s"${OverloadChecks.ms(g.refusalP50Ms, 0)} / ${OverloadChecks.ms(g.slowestRefusalMs, 0)}",
      g.thirdPartyPeak.fold("-")(p => s"$p of ${g.thirdPartySlots}"), g.breakerOpenings.fold("-")(f0), verdictOf(c))
  })

  /** The undersized pool, a row per SOAP mode. */
  def undersizedTable: String = MarkdownTable(undersizedHeader, undersizedRows)

  /**
   * A node-fault run second by second: answers by status, the cluster as the front saw it, and what happened to the
   * nodes in that second.
   */
  def clusterHeader(r: RunRecord): Seq[String] =
    Seq("second", "phase") ++ outcomesOf(r).map(_.label) ++
      Seq("members up", "unreachable", s"routees of ${NodeFaultChecks.kill(r).killed}", "nodes")

  def clusterRows(r: RunRecord): Seq[Seq[String]] =
    val cluster = NodeFaultChecks.cluster(r).map(c => c.second -> c).toMap
    val outcomes = outcomesOf(r)
    def count(d: Option[Double]) = d.fold("-")(v => f"$v%.0f")
    val verb = NodeFaultChecks.verb(FaultChecks.timeline(r).fault)
    val events = NodeFaultChecks.kill(r).events.groupBy(_.second.toInt)
    FaultChecks.timeline(r).seconds.map { s =>
      val phase = if s.second < NodeFaultChecks.killAt(r) then "before"
        else if s.second < NodeFaultChecks.restartAt(r) then verb else "restarted"
      val c = cluster.get(s.second)
      Seq(s.second.toString, phase) ++ outcomes.map(o => s.outcomes.getOrElse(o, 0).toString) ++
        Seq(count(c.flatMap(_.membersUp)), count(c.flatMap(_.unreachable)),
          c.filter(_.scraped).fold("?")(x => count(x.killedRoutees.orElse(Some(0)))),
          events.getOrElse(s.second, Nil).map(e => s"${e.node} ${e.what}").mkString("; "))
    }

  def markdown: String =
    val sections = Seq(
      Option.when(matrixRuns.nonEmpty)(matrixSection),
      Option.when(checks.ramps.nonEmpty)(rampSection),
      Option.when(checks.undersized.nonEmpty)(undersizedSection),
      Option.when(killed.nonEmpty)(killed.map(killedSection).mkString("\n")),
      Option.when(matrixRuns.nonEmpty)(details)).flatten
    // Tables go in after stripMargin, which would eat their leading pipes.
    sections.mkString("\n").replace("@@MATRIX@@", matrix).replace("@@RAMP@@", rampTables)
      .replace("@@UNDERSIZED@@", undersizedTable)

  private def matrixSection: String =
    val first = matrixRuns.head.record.info
    s"""## Fault matrix: ${if matrixRuns.forall(_.passed) && checks.suites.forall(_._2.forall(_.passed)) then
         "every check passed" else "SOME CHECKS FAILED"}
       |Each fault is injected under steady load, held, and cleared. "No answer" counts requests that got no HTTP
       |answer (timeout, reset, closed); "back after" is the time from clearing to the end of the first 1 s window
       |with OK answers at ${f0(Recovery.RecoveredShare * 100)} % of the pre-fault median. Threads and heap are
       |read after a full GC before the fault and after the load stopped.
       |
       |Setup: ${first.settings.getOrElse("-")}; stub latency ${first.stubLatency.getOrElse("-")}; ${first.clients}
       |steady keep-alive users on /customers/{id} (each run below gives its phases); users wait Retry-After (at most
       |5 s) after a 503, and new clients of the connection faults want an answer within 5 s.
       |
       |@@MATRIX@@
       |
       |Over each service's whole run (threads: every thread of the dump, ${FaultChecks.ThreadSlack} of slack; heap:
       |${FaultChecks.HeapFactor}x the first baseline + ${f0(FaultChecks.HeapSlackMb)} MB):
       |
       |${checks.suites.flatMap((m, cs) => cs.map(c => s"- $m: ${c.markdown}")).mkString("\n")}
       |""".stripMargin

  private def rampSection: String =
    val r = checks.ramps.head.record
    s"""## ${r.info.title.capitalize}
       |Setup: ${r.info.loadDescription}; ${r.info.settings.getOrElse("-")}.
       |
       |@@RAMP@@
       |
       |${checks.ramps.flatMap(_.checks).map(c => s"- ${c.markdown}").mkString("\n")}
       |""".stripMargin

  private def undersizedSection: String =
    val rs = checks.undersized
    val r = rs.head.record
    val passed = rs.forall(_.passed)
    s"""## The undersized pool: ${if passed then "every check passed" else "SOME CHECKS FAILED"}
       |The service with its SOAP client's slots far below the users (a connection of the host pool, a thread of the
       |work queue, a permit for a virtual thread), every other setting as shipped; the SOAP modes side by side, each
       |with its own users, on the same stub and Redis. Above its cap the service must answer the cap
       |(${GoodputChecks.CapShare} of slots / the third party's latency or better) and refuse the rest at once with
       |503 and Retry-After, the breaker closed.
       |
       |Load: ${r.info.loadDescription}; ${r.info.settings.getOrElse("-")}.
       |
       |@@UNDERSIZED@@
       |
       |${rs.flatMap(c => c.checks.map(x => s"- ${c.record.goodput.fold("")(_.mode)}: ${x.markdown}")).mkString("\n")}
       |""".stripMargin

  private def killedSection(c: FaultRunChecks): String =
    val r = c.record
    val t = FaultChecks.timeline(r)
    val verb = NodeFaultChecks.verb(t.fault)
    s"""## A node $verb (${t.fault}): ${
         if c.passed then "every check passed" else "SOME CHECKS FAILED"}
       |Setup: ${r.info.settings.getOrElse("-")}; ${r.info.loadDescription}; stub latency
       |${r.info.stubLatency.getOrElse("-")}; nodes ${r.info.nodes.mkString(", ")} (the first is the front); bound
       |${r.info.declaredBound.fold("-")(b => f"${b.perSecond}%.0f req/s (${b.what})")}. ${NodeFaultChecks.kill(r)
         .killed} $verb at ${f1(t.injectAt)} s, the fault over at ${f1(t.clearAt)} s,
       |started again (same cluster port) for the last time at ${f1(NodeFaultChecks.restartAt(r))} s; the load stopped
       |at ${f1(t.endAt)} s. Threads and heap of the nodes that stayed up were read after a full GC before the fault and
       |after the load stopped. "Within" counts to the end of the first ${NodeFaultChecks.WindowSeconds} s window
       |with OK answers at ${f0(Recovery.RecoveredShare * 100)} % of the level asked for; for the (N-1)/N level the
       |window starts once the front's router no longer lists the faulted node, for N/N once it lists the restarted
       |node again. The last column is what happened to the nodes (the lab's signals, the partition, exits it saw).
       |
       |${c.checks.map(x => s"- ${x.markdown}").mkString("\n")}
       |
       |### Second by second
       |
       |@@CLUSTER@@
       |""".stripMargin.replace("@@CLUSTER@@", MarkdownTable(clusterHeader(r), clusterRows(r)))

  /** Per fault run: its phases, answers, what the service retained, the recovery, and every check. */
  private def details: String =
    "## Each fault\n\n" + matrixRuns.map { c =>
      val t = FaultChecks.timeline(c.record)
      s"""### ${t.mode}, ${t.fault}: ${c.record.info.title}
         |- load: ${c.record.info.loadDescription}
         |- injected at ${f1(t.injectAt)} s, cleared at ${f1(t.clearAt)} s, load stopped at ${f1(t.endAt)} s; OK
         |  throughput back ${FaultChecks.recoverySeconds(t).fold("never")(s => f"$s%.1f s after clearing")}
         |- answers by status: ${statuses(t)}
         |- threads ${threads(t.before)} before, ${threads(t.after)} after; heap ${heap(t.before)} MB before,
         |  ${heap(t.after)} MB after (after a full GC)
         |${watched(t)}${hostile(t)}         |- charts: [report.html](report.html#run-${Html.id(c.record.info.name)})
         |
         |Checks:
         |
         |${c.checks.map(x => s"- ${x.markdown}").mkString("\n")}
         |""".stripMargin
    }.mkString("\n")

  /** The HTML summary of the fault runs: the matrix, the suite-wide checks, the ramp, the nodes killed. */
  def html: String =
    val matrixPart = Option.when(matrixRuns.nonEmpty)(
      s"""<h2 id="faults">Fault matrix</h2>
         |<p class="lead">Each fault injected under steady load, held and cleared; its checks are in its run's section
         |below.</p>
         |${Html.table(matrixHeader, matrixRows, "faults")}
         |<h3>Over each service's whole run</h3>
         |${checksTable(checks.suites.flatMap((m, cs) => cs.map(c => c.copy(name = s"$m: ${c.name}"))))}""".stripMargin)
    val rampPart = checks.ramps.map(c =>
      s"""<h2 id="overload">${Html.escape(c.record.info.title.capitalize)}</h2>
         |${Html.table(rampHeader, rampRows(c.record), "ramp")}
         |${checksTable(c.checks)}""".stripMargin)
    val undersizedPart = Option.when(checks.undersized.nonEmpty)(
      s"""<h2 id="undersized">The undersized pool</h2>
         |<p class="lead">Each SOAP mode's client with far fewer slots than users, side by side: the cap answered, the
         |rest refused at once.</p>
         |${Html.table(undersizedHeader, undersizedRows, "undersized")}
         |${checksTable(checks.undersized.flatMap(c => c.checks.map(x =>
           x.copy(name = s"${c.record.goodput.fold("")(_.mode)}: ${x.name}"))))}""".stripMargin)
    val killedPart = killed.map(c =>
      s"""<h2 id="${Html.id(c.record.info.name)}">A node ${Html.escape(c.record.info.title)}</h2>
         |${checksTable(c.checks)}""".stripMargin)
    (matrixPart.toSeq ++ rampPart ++ undersizedPart ++ killedPart).mkString("\n")

  /** A run's own checks in its section, with a node-killed run's second-by-second table. */
  def runHtml(r: RunRecord): String =
    (checks.runs ++ checks.ramps ++ checks.undersized).find(_.record eq r).fold("") { c =>
      val cluster = if killed.exists(_.record eq r) then
        s"<h3>Second by second, as the front saw the cluster</h3>\n${Html.table(clusterHeader(r), clusterRows(r))}"
      else ""
      s"""<h3>${if c.passed then "Every check passed" else "SOME CHECKS FAILED"}</h3>
         |${checksTable(c.checks)}
         |$cluster""".stripMargin
    }

object FaultsReport:
  def of(records: Seq[RunRecord]): FaultsReport = FaultsReport(RunChecks.of(records))

  private def f0(d: Double) = if d.isNaN || d.isInfinite then "-" else f"$d%.0f"
  private def f1(d: Double) = f"$d%.1f"

  def verdictOf(c: FaultRunChecks): String =
    if c.passed then "pass" else "FAIL: " + c.checks.filterNot(_.passed).map(_.name).mkString(", ")

  def checksTable(checks: Seq[Check]): String =
    Html.table(Seq("check", "result", "detail"), checks.map(c => Seq(c.name, if c.passed then "pass" else "FAIL",
      c.detail)), "checks")

  private def count(n: Option[Int]) = n.fold("-")(v => f"$v%,d")

  /** The service as the lab watched it: /health, the log, descriptors (a line of a run's details, or none). */
  private def watched(t: FaultTimeline): String = t.watch.fold("") { w =>
    def slowest(from: Double, to: Double) = w.healthWorstMs(from, to).fold("-")(v => f"$v%.0f ms")
    s"- /health (every ${w.probeEveryMs} ms on one keep-alive connection): ${w.healthOk} of " +
      s"${w.healthProbes} answered 200; slowest ${slowest(0, t.injectAt)} before the fault, " +
      s"${slowest(t.injectAt, t.clearAt + 1)} while held, ${slowest(t.clearAt + 1, t.endAt + 1)} after" +
      (if w.labPauses.isEmpty then "" else
        "; the lab paused the service " + w.labPauses.map(p => f"from ${p.from}%.1f to ${p.to}%.1f s (${p.what})")
          .mkString(", ") + s": ${w.labPausedProbes} probes overlapped, the slowest in " +
          s"${w.labPausedWorstMs().fold("-")(v => f"$v%.0f ms")}, left out of the slowest") + "\n" +
      f"- the service's log grew by ${w.logBytes}%,d bytes over the run; open descriptors ${count(w.descriptorsBefore)} " +
      s"before, at most ${count(w.descriptorsMax)}, ${count(w.descriptorsAfter)} once every connection closed\n"
  }

  /** Each group of hostile clients: what it did and what came of its requests. */
  private def hostile(t: FaultTimeline): String = t.hostile.map { h =>
    s"- hostile, ${h.group}: ${h.description}; ${h.connections} connections opened; ${HostileChecks.outcomes(h)}" +
      h.heldHeapMb.fold("")(m => f"; heap $m%.0f MB while held (after a full GC)") + "\n"
  }.mkString

  private def statuses(t: FaultTimeline): String =
    t.statuses.toSeq.sorted.map((s, n) => s"$s: $n").mkString(", ")
  private def threads(r: Retained): String = r.platformThreads.fold("-")(_.toString)
  private def heap(r: Retained): String = r.heapMb.fold("-")(h => f"$h%.0f")

  /** Every outcome a fault run's seconds hold, in label order. */
  def outcomesOf(r: RunRecord): Seq[RequestOutcome] =
    r.fault.toSeq.flatMap(_.seconds.flatMap(_.outcomes.keys)).distinct.sorted

  /**
   * The service's cores (its CPU seconds, children included) and the machine's busy share over a ramp step: from the
   * first to the last sample within the step's window (half a second of slack each side: samples and the step's
   * bounds are read on clocks started within a millisecond of each other).
   */
  def cpu(r: RunRecord, s: OverloadStep): (Option[Double], Option[Double]) =
    val in = r.samples.filter(x => x.second >= s.from - 0.5 && x.second <= s.to + 0.5)
    def over[A](f: Sample => Option[A]): Option[(Double, A, Double, A)] =
      val points = in.flatMap(x => f(x).map(x.second -> _))
      for (t0, a) <- points.headOption; (t1, b) <- points.lastOption if t1 > t0 yield (t0, a, t1, b)
    val cores = over(_.cpuSeconds).map((t0, a, t1, b) => (b - a) / (t1 - t0))
    val busy = over(x => for b <- x.machineBusyTicks; t <- x.machineTotalTicks yield (b, t)).collect {
      case (_, (b0, n0), _, (b1, n1)) if n1 > n0 => (b1 - b0).toDouble / (n1 - n0)
    }
    (cores, busy)

  /** A colour per outcome: OK green, each failing status its own, no answer in greys. */
  def outcomeColor(o: RequestOutcome): String = o match
    case RequestOutcome.Status(200) => "#2ca02c"
    case RequestOutcome.Status(502) => "#ff7f0e"
    case RequestOutcome.Status(503) => "#9467bd"
    case RequestOutcome.Status(504) => "#d62728"
    case RequestOutcome.Status(c) => Timeline.classColor(s"${c / 100}xx")
    case RequestOutcome.Timeout => "#000000"
    case RequestOutcome.Reset => "#7f7f7f"
    case RequestOutcome.Closed => "#bcbd22"
    case RequestOutcome.Connect => "#17becf"
    case RequestOutcome.Abandoned => "#8c564b"

  /**
   * A fault run's own charts, on the run's time axis: answers per second by outcome with the fault held shaded and
   * the circuit breaker's state; the service's platform threads and heap; on a node killed, the cluster as the front
   * saw it.
   */
  def charts(r: RunRecord, id: String): Seq[Chart] = r.fault.toSeq.flatMap { t =>
    val seconds = r.faultSeconds
    val outcomes = outcomesOf(r)
    val top = seconds.flatMap(_.outcomes.values).maxOption.getOrElse(1).max(1).toDouble
    val answers = outcomes.map(o => Series(o.word, seconds.map(s => (s.second + 0.5, s.outcomes.getOrElse(o, 0)
      .toDouble)), outcomeColor(o)))
    val held = Series("fault held", Seq(t.injectAt -> top, t.clearAt -> top), "#d62728", dashed = true, filled = true)
    val breaker = Series("circuit breaker (0 closed, 1 half-open, 2 open)",
      seconds.flatMap(s => s.breaker.map(s.sample.fold(s.second.toDouble)(_.second) -> _)), "#000000", axis = "y2")
    def gauge(label: String, f: Sample => Option[Double], color: String, axis: String = "y") =
      Series(label, r.samples.filter(_.second <= t.endAt + 1).flatMap(s => f(s).map(s.second -> _)), color,
        axis = axis)
    val killed = t.nodeKill.toSeq.flatMap { k =>
      val cluster = NodeFaultChecks.cluster(r)
      Chart.of(s"$id-fault-cluster", "The cluster as the front saw it", Chart.Time, "members", Seq(
        Series("members up", cluster.flatMap(c => c.membersUp.map(c.second.toDouble -> _)), "#2ca02c"),
        Series("unreachable", cluster.flatMap(c => c.unreachable.map(c.second.toDouble -> _)), "#d62728"),
        Series(s"routees of ${k.killed}", cluster.filter(_.scraped).map(c =>
          c.second.toDouble -> c.killedRoutees.getOrElse(0.0)), "#1f77b4", axis = "y2")), unit2 = Some("routees"))
    }
    Seq(
      Chart.of(s"$id-fault-answers", s"${t.fault}: answers per second by outcome, the fault held shaded",
        Chart.Time, "answers/s", (answers :+ held) :+ breaker, unit2 = Some("breaker")),
      Chart.of(s"$id-fault-gauges", "Platform threads (/proc) and heap used (/metrics)", Chart.Time,
        "threads", Seq(gauge("platform threads", _.platformThreads.map(_.toDouble), "#1f77b4"),
          gauge("heap used MB", _.metrics.flatMap(_.heapUsedMb), "#ff7f0e", axis = "y2")), unit2 = Some("MB"))
    ).flatten ++ killed
  }
