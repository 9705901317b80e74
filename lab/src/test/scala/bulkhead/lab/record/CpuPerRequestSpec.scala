package bulkhead.lab.record

import bulkhead.lab.model.Answers
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** CPU per request on recorded runs: a short `bench hello` (five servers) and a short `bench enrichment`. */
class CpuPerRequestSpec extends AnyFlatSpec with Matchers:
  private val hello = Fixtures.records("bench-hello")
  private val enrichment = Fixtures.records("bench-enrichment").head

  "CpuPerRequest" should "divide the CPU of the server's process tree between the readings around the load by its answers" in {
    hello should not be empty
    hello.foreach { r =>
      val spent = r.afterLoad.flatMap(_.cpuSeconds).get - r.beforeLoad.flatMap(_.cpuSeconds).get
      withClue(s"${r.info.target}: ")(CpuPerRequest.service(r).get shouldBe (spent / r.load.answers.answered * 1e6 +- 1e-6))
    }
  }

  it should "count nginx's worker, a child of the master the lab started" in {
    val nginx = hello.filter(_.info.target == "nginx")
    nginx should not be empty
    nginx.foreach { r =>
      // The master is one thread that only waits: the CPU of the requests is its worker's.
      r.samples.flatMap(_.platformThreads).max shouldBe 1
      CpuPerRequest.service(r).get should be > 0.0
    }
  }

  it should "count the stub and redis-server per answer of the service, the same way" in {
    val deps = CpuPerRequest.dependencies(enrichment)
    deps.keySet shouldBe Set("stub", "redis")
    val answered = enrichment.load.answers.answered
    for (name, us) <- deps do
      val spent = enrichment.afterLoad.get.dependencyCpuSeconds(name) - enrichment.beforeLoad.get.dependencyCpuSeconds(name)
      withClue(s"$name: ")(us shouldBe (spent / answered * 1e6 +- 1e-6))
  }

  it should "count rates over the samples of a run recorded without readings around its load" in {
    val bare = enrichment.copy(beforeLoad = None, afterLoad = None)
    val points = bare.measuredSamples.flatMap(s => s.cpuSeconds.map(s.second -> _))
    points.size should be >= 2
    val ((t0, c0), (t1, c1)) = (points.head, points.last)
    CpuPerRequest.service(bare).get shouldBe ((c1 - c0) / (t1 - t0) / bare.load.answeredPerSecond * 1e6 +- 1e-6)
  }

  it should "count a ramp over its measured phase only, not from the readings before its ramp-up" in {
    val samples = enrichment.samples
    val ramp = enrichment.copy(measuredFrom = samples(1).second, measuredTo = samples.last.second)
    ramp.measuredSamples.size should be >= 2
    ramp.measuredSamples.map(_.second) should not contain samples.head.second
    CpuPerRequest.service(ramp) shouldBe CpuPerRequest.overSamples(ramp.measuredSamples, _.cpuSeconds,
      ramp.load.answeredPerSecond)
    CpuPerRequest.service(ramp) should not be CpuPerRequest.service(enrichment)
  }

  it should "give nothing for a run that got no answer" in {
    val none = enrichment.copy(load = enrichment.load.copy(answers = Answers.Empty))
    CpuPerRequest.service(none) shouldBe None
    CpuPerRequest.dependencies(none) shouldBe empty
  }

  it should "count the JIT compiler threads' part the same way, and none for a run recorded without it" in {
    CpuPerRequest.jit(enrichment) shouldBe None
    val withJit = enrichment.copy(beforeLoad = enrichment.beforeLoad.map(_.copy(jitCpuSeconds = Some(10.0))),
      afterLoad = enrichment.afterLoad.map(_.copy(jitCpuSeconds = Some(10.5))))
    CpuPerRequest.jit(withJit).get shouldBe (0.5 / enrichment.load.answers.answered * 1e6 +- 1e-6)
    CpuPerRequest.jit(withJit).get should be < CpuPerRequest.service(withJit).get
  }
