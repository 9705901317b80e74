package bulkhead.service.metrics

import bulkhead.service.testkit.{Promtool, Scratch, ServedTraffic}
import com.github.plokhotnyuk.jsoniter_scala.core.{JsonValueCodec, readFromArray}
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.{Files, Path}

/**
 * The Grafana dashboard in docs/grafana: the structure Grafana imports (panels with a position and Prometheus queries
 * on the declared data source input), queries that parse as PromQL, and metric names that a real scrape of the
 * service has.
 */
@Slow
class GrafanaDashboardSpec extends AnyFlatSpec with Matchers:
  import GrafanaDashboardSpec.*

  private val file = Path.of("../docs/grafana/bulkhead-dashboard.json")
  private lazy val dashboard = readFromArray[Dashboard](Files.readAllBytes(file))
  private def queries = dashboard.panels.flatMap(_.targets.map(_.expr))

  "The Grafana dashboard" should "be a dashboard Grafana imports: panels placed on the grid, each with queries" in {
    dashboard.title should not be empty
    dashboard.__inputs.map(i => (i.name, i.pluginId)) shouldBe Seq("DS_PROMETHEUS" -> "prometheus")
    dashboard.panels.size should be >= 6
    dashboard.panels.map(_.id).distinct should have size dashboard.panels.size
    for p <- dashboard.panels do
      withClue(s"panel '${p.title}': ") {
        p.title should not be empty
        p.targets should not be empty
        p.targets.map(_.refId).distinct should have size p.targets.size
        p.datasource.uid shouldBe "${DS_PROMETHEUS}"
        p.gridPos.w should (be > 0 and be <= 24)
        p.gridPos.h should be > 0
      }
  }

  it should "show per-pool saturation, requests by status, latency percentiles, connections and CPU" in {
    val names = queries.flatMap(metricNames).toSet
    names should contain allOf ("executor_active_threads", "executor_pool_max_threads", "executor_queued_tasks",
      "http_server_requests_seconds_count", "http_server_requests_seconds_bucket", "http_server_connections_open",
      "http_server_connections_max", "process_cpu_seconds_total")
    queries.count(_.startsWith("histogram_quantile(")) should be >= 3
  }

  it should "have only queries that parse as PromQL (promtool check rules)" in {
    // A YAML block scalar holds each query as it is, backslashes included; Grafana's range variable becomes 1m.
    val rules = queries.zipWithIndex.map { (q, i) =>
      s"      - record: dashboard:query_$i\n        expr: |\n          ${q.replace("$__rate_interval", "1m")}"
    }
    val file = Scratch.file("dashboard-queries", ".rules.yml")
    Files.writeString(file, rules.mkString("groups:\n  - name: dashboard\n    rules:\n", "\n", "\n"))
    val checked = Promtool.run(Seq("check", "rules", file.toString))
    withClue(checked.output.mkString("\n"))(checked.exitCode shouldBe 0)
  }

  it should "name only metrics that the service publishes" in {
    val scraped = ServedTraffic.scrape().linesIterator.filterNot(_.startsWith("#")).map(_.takeWhile(c => c != '{' &&
      c != ' ')).toSet
    val missing = queries.flatMap(metricNames).distinct.filterNot(scraped)
    missing shouldBe Nil
  }

  "Reading metric names from PromQL" should "skip functions, labels, strings, ranges and grouping clauses" in {
    metricNames("""sum by (route, class) (label_replace(rate(a_total{job=~"$job"}[5m]), "class", "${1}xx", "status",
      "(\\d).."))""") shouldBe Seq("a_total")
    metricNames("histogram_quantile(0.99, sum without (instance) (rate(b_bucket[1m]))) / on (x) c") shouldBe
      Seq("b_bucket", "c")
  }

object GrafanaDashboardSpec:
  final case class Input(name: String, pluginId: String)
  final case class DataSource(`type`: String, uid: String)
  final case class GridPos(x: Int, y: Int, w: Int, h: Int)
  final case class Target(refId: String, expr: String)
  final case class Panel(id: Int, `type`: String, title: String, datasource: DataSource, gridPos: GridPos,
      targets: Seq[Target])
  final case class Dashboard(title: String, uid: String, __inputs: Seq[Input], panels: Seq[Panel])

  given JsonValueCodec[Dashboard] = JsonCodecMaker.make

  private val Keywords = Set("by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "and",
    "or", "unless", "inf", "nan")

  /**
   * The metric names a PromQL expression selects: what is left once strings, label sets, ranges, grouping clauses
   * and function calls are taken out.
   */
  def metricNames(promql: String): Seq[String] =
    val bare = promql
      .replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", " ")
      .replaceAll("\\{[^}]*}", " ")
      .replaceAll("\\[[^]]*]", " ")
      .replaceAll("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ")
    "[a-zA-Z_:][a-zA-Z0-9_:]*+(?!\\s*\\()".r.findAllMatchIn(bare)
      .filter(m => m.start == 0 || !bare(m.start - 1).isLetterOrDigit && bare(m.start - 1) != '_')
      .map(_.matched).filterNot(n => Keywords(n.toLowerCase)).toSeq.distinct
