package bulkhead.lab.record

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Which samples of a recorded run read its load, and which read it starting or draining. */
class LoadWindowSpec extends AnyFlatSpec with Matchers:
  private def recorded(name: String): RunRecord = Fixtures.records(name).head
  private def seconds(r: RunRecord) = r.measuredSamples.map(_.second.round.toInt)
  private def busy(r: RunRecord, pool: String) =
    r.measuredSamples.map(_.pools.filter(_.pool.endsWith(pool)).map(_.busy).sum)

  "The samples of a run" should "leave out the one taken as the clients stopped, whose dump read the requests draining" in {
    // The demo's row 4, sampled every 10 s: the blocking pool held 961 of 1,000 threads at 10 s and 798 at 20 s, as
    // wrk's 1,000 connections closed; its own gauge, scraped just before that dump, still read 954 active.
    val r = recorded("demo-row-4-idle-dispatcher")
    r.samples.map(_.second.round.toInt) shouldBe Seq(0, 10, 20)
    seconds(r) shouldBe Seq(10)
    busy(r, "blocking-pool") shouldBe Seq(961)
  }

  it should "leave out a last dump that found the pool empty while every one before found it full" in {
    // 16 clients on a 16-thread pool: 14 to 16 busy in every dump, none in the one at the run's 10th second.
    val r = Fixtures.records("pool-4-c16-verify-jdk25").find(_.info.name.contains("verify")).get
    r.samples.last.pools.filter(_.pool.endsWith("blocking-pool")).map(_.busy).sum shouldBe 0
    seconds(r) shouldBe (1 to 9)
    busy(r, "blocking-pool").min should be >= 14
  }

  it should "keep a last sample that still held the load, the closed loop's and the open loop's backlog alike" in {
    // Every 50 threads' dump of the Jedis case holds 50 requests, the last one too.
    seconds(recorded("zoo-jedis-held")) shouldBe (1 to 15)
    // An open loop's step: vegeta stopped sending at 5 s, the work queue still full with 10 queued at 5.17 s, answers
    // its driver counted until 5.34 s.
    val step = Fixtures.records("capacity-soap-work-queue").find(_.info.capacityStep.exists(_.index == 3)).get
    seconds(step) shouldBe Seq(1, 2, 3, 4, 5)
  }

  it should "not read a last dump one busy thread short of the others as a drain" in {
    // /hello at 70,000 req/s: 10 threads busy at 5 s, 9 at 10 s, while the answer counter ran at full rate up to it.
    seconds(recorded("hello-tcp-on-default-dispatcher")) shouldBe Seq(5, 10)
  }

  it should "keep the only sample a short run has, wherever it fell" in {
    // A 3 s bench round sampled every 5 s: its one sample is at the load's start.
    val r = recorded("bench-ab/defaults")
    r.samples.size shouldBe 1
    r.measuredSamples shouldBe r.samples
  }

  it should "leave out the first samples of a closed loop that read its clients still arriving" in {
    // Akka HTTP took row 4's 1,000 clients in over ~4 s: 199 and 679 busy in its first two samples inside the load.
    val r = recorded("row-4-akka-arriving")
    val inside = r.samples.filter(s => s.second > LoadWindow.Slack && s.second < r.measuredTo - LoadWindow.Slack)
    busy(r, "my-blocking-dispatcher").min should be > 800
    inside.take(2).map(LoadWindow.busy).max should be < 700
    r.measuredSamples.head.second shouldBe inside(2).second
    // Then the pool reads full on the mean, where with them it read 88 %.
    val mean = busy(r, "my-blocking-dispatcher").sum.toDouble / r.measuredSamples.size
    mean should be > 950.0
  }

  it should "read as arriving only leading samples below every later one by more than a drain" in {
    LoadWindow.arriving(Seq(199, 679, 953, 943, 991, 851)) shouldBe 2
    LoadWindow.arriving(Seq(953, 943, 991, 851)) shouldBe 0
    // Noise among a few busy threads is no arrival; a first sample of none is.
    LoadWindow.arriving(Seq(3, 2, 5)) shouldBe 0
    LoadWindow.arriving(Seq(0, 3, 2, 5)) shouldBe 1
    // A low sample later on is not an arrival, and the last sample is always kept.
    LoadWindow.arriving(Seq(990, 400, 995)) shouldBe 0
    LoadWindow.arriving(Seq(10, 500)) shouldBe 1
    LoadWindow.arriving(Seq(10)) shouldBe 0
    LoadWindow.arriving(Nil) shouldBe 0
  }

  "A drain" should "be a fall below the fewest busy threads inside the load by more than their square root" in {
    LoadWindow.drained(961, 798) shouldBe true
    LoadWindow.drained(1000, 243) shouldBe true
    LoadWindow.drained(10, 9) shouldBe false
    LoadWindow.drained(0, 0) shouldBe false
  }

  "Whether a run read its load" should "be no for one sampled only as its load started, yes for a single recorded dump" in {
    // Row 4 on bulkhead, --short: its one sample at second 0, before any request.
    val unsampled = recorded("row-4-unsampled")
    LoadWindow.sampled(unsampled.samples, unsampled.measuredFrom, unsampled.measuredTo) shouldBe false
    // One dump taken from production (the lab's analysis of dumps): its measured phase is that dump's instant.
    val single = OfflineRun("one-dump", "recorded", Seq(bulkhead.lab.sample.TimedDump(0,
      bulkhead.lab.sample.ThreadDump.parse(Fixtures.text("threaddump-zoo-spring-hikari-pool4-c30-jdk25.txt")), None)),
      None)
    LoadWindow.sampled(single.samples, single.measuredFrom, single.measuredTo) shouldBe true
    val edges = recorded("row-4-edges")
    LoadWindow.sampled(edges.samples, edges.measuredFrom, edges.measuredTo) shouldBe true
  }
