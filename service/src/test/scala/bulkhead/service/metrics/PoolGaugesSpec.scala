package bulkhead.service.metrics

import bulkhead.service.dispatch.{PoolName, PoolProbe}
import bulkhead.service.testkit.HttpProbe.{eventually, metric}
import io.micrometer.prometheusmetrics.{PrometheusConfig, PrometheusMeterRegistry}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.{CountDownLatch, LinkedBlockingQueue, ThreadPoolExecutor, TimeUnit}

/** A pool's gauges in Prometheus text, read from a real executor while its threads are held. */
class PoolGaugesSpec extends AnyFlatSpec with Matchers:
  private def system = s"pool-gauges-spec-${System.nanoTime()}"

  "PoolGauges" should "publish busy threads, size, queue and completed tasks of a pool, tagged with its label" in {
    val name = system
    val executor = ThreadPoolExecutor(3, 3, 1, TimeUnit.MINUTES, LinkedBlockingQueue[Runnable]())
    val registry = PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
    PoolGauges.bind(registry, PoolProbe.adopt(name, PoolName("spec.held-pool"), executor))
    val release = CountDownLatch(1)
    def sample(family: String) = metric(registry.scrape(), s"""$family{name="held-pool"}""")
    try
      (1 to 5).foreach(_ => executor.execute(() => release.await()))
      eventually()(sample("executor_active_threads").contains(3.0)) shouldBe true
      sample("executor_queued_tasks") shouldBe Some(2.0)
      sample("executor_pool_max_threads") shouldBe Some(3.0)
      sample("executor_pool_size_threads") shouldBe Some(3.0)
      sample("executor_completed_tasks_total") shouldBe Some(0.0)
      release.countDown()
      eventually()(sample("executor_completed_tasks_total").contains(5.0)) shouldBe true
      sample("executor_active_threads") shouldBe Some(0.0)
    finally
      executor.shutdownNow()
      PoolProbe.forget(name)
  }

  it should "keep reading a pool after a garbage collection, with nothing but the registry holding its probe" in {
    val name = system
    val executor = ThreadPoolExecutor(3, 3, 1, TimeUnit.MINUTES, LinkedBlockingQueue[Runnable]())
    val registry = PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
    def sample(family: String) = metric(registry.scrape(), s"""$family{name="kept-pool"}""")
    try
      PoolGauges.bind(registry, PoolProbe.adopt(name, PoolName("spec.kept-pool"), executor))
      executor.execute(() => ())
      // A collection that clears a weak reference would clear one to the probe too.
      val sentinel = java.lang.ref.WeakReference(Object())
      val deadline = System.nanoTime() + 10_000_000_000L
      while sentinel.get != null && System.nanoTime() < deadline do
        System.gc()
        Thread.sleep(10)
      sentinel.get shouldBe null
      sample("executor_pool_max_threads") shouldBe Some(3.0)
      eventually()(sample("executor_completed_tasks_total").contains(1.0)) shouldBe true
    finally
      executor.shutdownNow()
      PoolProbe.forget(name)
  }

  it should "publish every family for a pool without an executor: NaN gauges, zero counters" in {
    val registry = PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
    PoolGauges.bind(registry, PoolProbe(system, PoolName("spec.absent-pool")))
    val text = registry.scrape()
    metric(text, """executor_active_threads{name="absent-pool"}""").get.isNaN shouldBe true
    metric(text, """executor_completed_tasks_total{name="absent-pool"}""") shouldBe Some(0.0)
  }
