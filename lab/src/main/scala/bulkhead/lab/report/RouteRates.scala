package bulkhead.lab.report

import bulkhead.lab.model.LoadFigures

/** Each route of a load of several: its answers and its rate of expected answers, beside the run's one verdict. */
object RouteRates:
  def render(load: LoadFigures, expectedClass: String = "2xx"): String =
    val width = (load.routes.map(_.route.length) :+ 5).max
    val rows = load.routes.map { r =>
      val classes = r.byClass.toSeq.sortBy(_._1).map((c, n) => s"$n x $c").mkString(", ")
      val none = r.unanswered.filter(_ > 0).fold("")(n => s"; $n no answer")
      val rate = r.throughput(load.durationSeconds, expectedClass)
      s"%-${width}s".format(r.route) + f"  $rate%8.1f req/s  ($classes$none)"
    }
    (s"%-${width}s  %14s".format("route", s"$expectedClass rate") +: rows).mkString("\n")
