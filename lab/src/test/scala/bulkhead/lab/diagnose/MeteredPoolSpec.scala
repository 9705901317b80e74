package bulkhead.lab.diagnose

import bulkhead.lab.model.{MetricsReading, PoolMeter}
import bulkhead.lab.record.OfflineRun
import bulkhead.lab.sample.{ThreadDump, TimedDump}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/**
 * A service's own Micrometer meters beside its thread dump: Spring Boot's /actuator/prometheus (Tomcat, HikariCP of 4
 * connections, its task executor, the JVM's threads) scraped while wrk sent 30 clients' POSTs, and the jstack dump
 * taken a moment later. The meters are read by what their names mean, and the pool the dump shows threads waiting on
 * takes its size from them.
 */
class MeteredPoolSpec extends AnyFlatSpec with Matchers:
  private val scrape = Fixtures.text("metrics-zoo-spring-hikari-pool4-c30-jdk25.txt")
  private val reading = MetricsReading.parse(scrape)
  private val dump = ThreadDump.parse(Fixtures.text("threaddump-zoo-spring-hikari-pool4-c30-jdk25.txt"))

  "A scrape's pools" should "be found by what their meters' names mean, one per family and tags, with their unit" in {
    val pools = PoolMeter.of(MetricsReading.lines(scrape))
    val hikari = pools.find(_.family == "hikaricp").get
    hikari.id shouldBe Map("pool" -> "HikariPool-1")
    hikari.unit shouldBe "connections"
    (hikari.size.map(_.value), hikari.inUse.map(_.value), hikari.waiting.map(_.value)) shouldBe
      (Some(4.0), Some(4.0), Some(25.0))
    hikari.completed.map(_.meter) shouldBe Some("hikaricp_connections_usage_seconds_count")
    hikari.busySeconds.map(_.meter) shouldBe Some("hikaricp_connections_usage_seconds_sum")
    val tomcat = pools.filter(_.family == "tomcat").map(p => p.unit -> p).toMap
    tomcat("threads").inUse.map(_.meter) shouldBe Some("tomcat_threads_busy_threads")
    tomcat("threads").size.map(_.value) shouldBe Some(200.0)
    tomcat("connections").size.map(_.meter) shouldBe Some("tomcat_connections_config_max_connections")
    pools.find(_.family == "executor").get.waiting.map(_.meter) shouldBe Some("executor_queued_tasks")
    // The JVM's thread counts and the request timers have neither a size nor units in use: no pool.
    pools.map(_.family) should not contain "jvm"
    pools.map(_.family).filter(_.startsWith("http")) shouldBe empty
  }

  it should "give Tomcat's thread pool as a pool gauge named by its tag, beside bulkhead's executors" in {
    val tomcat = reading.pool("http-nio-127.0.0.1-auto-1").get
    (tomcat.active, tomcat.max, tomcat.meter) shouldBe (Some(30.0), Some(200.0), Some("tomcat_threads_busy_threads"))
    reading.pool("applicationTaskExecutor").flatMap(_.meter) shouldBe Some("executor_active_threads")
    reading.answeredByClass("2xx") should be > 100.0
  }

  "A resource seen in the dump and in the meters" should "take its size from the meter and its waiters from the dump" in {
    val record = OfflineRun("metered", "recorded", Seq(TimedDump(0, dump, Some(reading))), Some(33.48))
    val v = Diagnosis(record)
    (v.cap.name, v.cap.subject) shouldBe ("connection-pool", "com.zaxxer.hikari.util.ConcurrentBag.borrow")
    val link = v.chain.find(_.startsWith("connection-pool")).get
    link should include("4.0 of 4 connections held, 25.0 waiting")
    link should include("(hikaricp_connections_active 4 of 4, 25 pending)")
    v.cap.why should include("4 / ")
  }

  it should "count it full while threads queue on it, whatever its in-use gauge caught during a hand-over" in {
    // The gauge read between a release and the waiter's wake-up: 3 of 4 active with 25 pending. Read as is, the hold
    // would be 3/4 of the true one and the bound a third above what the pool lets through.
    val handing = MetricsReading.parse(scrape.replace("""hikaricp_connections_active{pool="HikariPool-1"} 4.0""",
      """hikaricp_connections_active{pool="HikariPool-1"} 3.0"""))
    val v = Diagnosis(OfflineRun("handing", "recorded", Seq(TimedDump(0, dump, Some(handing))), Some(33.48)))
    val link = v.chain.find(_.startsWith("connection-pool")).get
    link should include("4.0 of 4 connections held, 25.0 waiting")
    link should include("(hikaricp_connections_active 3 of 4, 25 pending)")
  }

  it should "be the meter whose requests waiting agree with the dump's waiters, where the dump missed its holders" in {
    val sample = bulkhead.lab.sample.Sample(0, Nil, None, None, None, None, None, Some(reading))
    val pools = MeteredPool.of(Seq(sample))
    // A dump that caught one borrower between its wait and the hand-over as the only thread past the borrow.
    MeteredPool.matching(pools, holders = 1, waiters = 24).map(_.meter.label) shouldBe Some("HikariPool-1")
    MeteredPool.matching(pools, holders = 1, waiters = 3) shouldBe None
  }

  it should "show no meter where none agrees with the dump (a scrape of another pool's figures)" in {
    val other = MetricsReading.parse(scrape.linesIterator.filterNot(_.startsWith("hikaricp")).mkString("\n"))
    val v = Diagnosis(OfflineRun("unmetered", "recorded", Seq(TimedDump(0, dump, Some(other))), Some(33.48)))
    v.chain.mkString(" -> ") should not include "hikaricp"
    v.chain.mkString(" -> ") should not include "tomcat_connections"
  }

  "The request rate of scrapes beside dumps" should "be the service's 2xx counter over the dumps' seconds" in {
    val later = MetricsReading.parse(Fixtures.text("metrics-zoo-spring-hikari-pool4-c30-jdk25-later.txt"))
    val rate = OfflineRun.meteredRate(Seq(TimedDump(0, dump, Some(reading)), TimedDump(2, dump, Some(later))))
    rate shouldBe Some((later.answeredByClass("2xx") - reading.answeredByClass("2xx")) / 2)
    rate.get should be > 0.0
    OfflineRun.meteredRate(Seq(TimedDump(0, dump, Some(reading)))) shouldBe None
  }
