package bulkhead.lab.bench

import bulkhead.lab.model.Target
import bulkhead.lab.scenario.Load
import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path
import scala.concurrent.duration.*

class BenchSuiteSpec extends AnyFlatSpec with Matchers:
  private val root = Path.of("..").toAbsolutePath.normalize

  "Every bench suite" should "have readable scenario files, one case each, named uniquely" in {
    BenchSuite.All.foreach { suite =>
      val cases = suite.cases(root).fold(e => fail(e), identity)
      withClue(suite.name)(cases should not be empty)
      cases.map(_.name).distinct should have size cases.size
    }
  }

  "bench hello" should "run /hello at 100 and 1,000 connections and one request per connection, on every server" in {
    val cases = BenchSuite.named("hello").get.cases(root).toOption.get
    cases.map(_.load.concurrency) shouldBe Seq(100, 1000, 100)
    cases.map(_.load.asInstanceOf[Load.Wrk].closeEach) shouldBe Seq(false, false, true)
    cases.foreach(_.targets shouldBe Seq(Target.Bulkhead, Target.PekkoMinimal, Target.AkkaHttp, Target.Spray, Target.Nginx))
  }

  "bench ab" should "run its reference and every candidate on bulkhead, and the minimal Pekko server alone" in {
    val suite = BenchSuite.named("ab").get
    val cases = suite.cases(root).toOption.get
    cases.map(_.name) should contain(suite.reference.get)
    cases.filter(_.targets == Seq(Target.PekkoMinimal)) should have size 1
    val candidates = cases.filter(_.targets == Seq(Target.Bulkhead))
    // Each candidate differs from the reference; all-off carries every other candidate's settings.
    val reference = candidates.find(_.name == suite.reference.get).get
    val singles = candidates.filterNot(c => c.name == reference.name || c.name == "all-off")
    singles.foreach(c => (c.serviceFlags, c.heap) should not be (reference.serviceFlags, reference.heap))
    val all = candidates.find(_.name == "all-off").get
    singles.flatMap(_.serviceFlags.grouped(2).toSeq).foreach(flag => all.serviceFlags.grouped(2).toSeq should contain(flag))
    singles.flatMap(_.heap).foreach(h => all.heap shouldBe Some(h))
  }

  "bench cluster" should "bound 100 clients on 1 s of blocking work by 25 threads on each of 1, 2 and 3 nodes" in {
    val cases = BenchSuite.named("cluster").get.cases(root).toOption.get
    cases.map(_.clusterNodes) shouldBe Seq(1, 2, 3)
    cases.foreach(_.load.concurrency shouldBe 100)
    cases.flatMap(_.bound.map(_.perSecond)) shouldBe Seq(25.0, 50.0, 75.0)
  }

  "BenchSuite.adjust" should "apply the command line's duration, warm-up and connections, and the bound follows" in {
    val pool = BenchSuite.named("work").get.cases(root).toOption.get.find(_.name == "pool-200").get
    pool.bound.get.perSecond shouldBe 2000.0 +- 1e-9 // 200 threads / 0.1 s, below 1,000 clients / 0.1 s
    val small = BenchSuite.adjust(pool, Some(3.seconds), Some(2.seconds), Some(100))
    small.load shouldBe pool.load.asInstanceOf[Load.Wrk].copy(duration = 3.seconds, connections = 100)
    small.warmup shouldBe 2.seconds
    small.bound.get.perSecond shouldBe 1000.0 +- 1e-9 // now 100 clients / 0.1 s
    BenchSuite.adjust(pool, None, None, None) shouldBe pool
    BenchSuite.adjust(pool, None, None, Some(1000), Some(6)).load shouldBe
      pool.load.asInstanceOf[Load.Wrk].copy(connections = 1000, threads = 6)
    BenchSuite.adjust(pool, None, None, Some(4), Some(6)).load.asInstanceOf[Load.Wrk].threads shouldBe 4
  }

  "bench pause" should "sample 200, 2,000 and 10,000 threads held by as many clients, every second" in {
    val cases = BenchSuite.named("pause").get.cases(root).toOption.get
    cases.map(c => (c.name, c.load.concurrency, c.sampleEvery)) shouldBe Seq(("threads-200", 200, 1.second),
      ("threads-2000", 2000, 1.second), ("threads-10000", 10000, 1.second))
  }

  "BenchSuite.of" should "name the suite of a recorded case from its scenario file" in {
    BenchSuite.of("/x/lab/scenarios/bench/ab/00-defaults.conf").map(_.name) shouldBe Some("ab")
    BenchSuite.of("/x/lab/scenarios/seeds/07-hello-c100.conf") shouldBe None
  }

  "bench sampler" should "set each sampled case against the same load unsampled, and refuse a reference it lacks" in {
    val suite = BenchSuite.named("sampler").get
    val cases = suite.cases(root).toOption.get
    cases.filter(_.sampleEvery > Duration.Zero).map(c => c.name -> c.compareWith) shouldBe Seq(
      "hello-every-1s" -> Some("hello-unsampled"), "hello-every-5s" -> Some("hello-unsampled"),
      "threads-2000-every-1s" -> Some("threads-2000-unsampled"),
      "threads-2000-every-5s" -> Some("threads-2000-unsampled"),
      "virtual-2000-every-1s" -> Some("virtual-2000-unsampled"))
    val dir = Scratch.dir("bench-suite")
    try
      val suiteDir = java.nio.file.Files.createDirectories(dir.resolve("lab/scenarios/bench/sampler"))
      java.nio.file.Files.writeString(suiteDir.resolve("a.conf"),
        "name = a\nload { path = /hello, connections = 1, duration = 1s }\ncompare-with = nowhere\n")
      suite.cases(dir).left.toOption.get should include("compare-with names nowhere")
    finally
      java.nio.file.Files.walk(dir).sorted(java.util.Comparator.reverseOrder()).forEach(java.nio.file.Files.delete)
  }
