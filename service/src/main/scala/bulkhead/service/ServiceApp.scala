package bulkhead.service

import bulkhead.service.cluster.ClusterRouting
import bulkhead.service.config.{ClusterSettings, MetricsListener, ServiceSettings}
import bulkhead.service.dispatch.{PoolProbe, Pools, TimerPool}
import bulkhead.service.enrichment.EnrichmentPipeline
import bulkhead.service.http.{HeadBytesBudget, HttpServer, Listeners, Routes}
import bulkhead.service.metrics.ServiceMetrics
import bulkhead.service.redis.LettuceProfileStores
import bulkhead.service.soap.SoapClients
import bulkhead.service.work.WorkRunner
import com.typesafe.config.Config
import io.micrometer.core.instrument.config.MeterFilter
import org.apache.pekko.Done
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.http.scaladsl.Http

import java.nio.file.{Files, Path}
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}

/** A started service: its address, its meters, and a graceful stop. */
final class RunningService(val system: ActorSystem[Nothing], val binding: Listeners,
    val metrics: ServiceMetrics, val pipeline: EnrichmentPipeline, stopHook: () => Future[Done],
    val metricsBinding: Option[Http.ServerBinding]):
  def port: Int = binding.localAddress.getPort
  /** Port of /metrics: the service's own unless metrics have their own listener. */
  def metricsPort: Int = metricsBinding.fold(port)(_.localAddress.getPort)
  /** Stops accepting, drains in-flight requests up to the configured deadline, and terminates. */
  def stop(): Future[Done] = stopHook()

/** Assembles the service from its settings: pools, meters, clients, routes, socket. */
object ServiceApp:

  def start(settings: ServiceSettings, config: Config, name: String = "bulkhead"): Future[RunningService] =
    given system: ActorSystem[Nothing] = ActorSystem[Nothing](Behaviors.empty[Nothing], name,
      ClusterSettings.pekkoConfig(settings.cluster, name).withFallback(config))
    given ExecutionContext = system.executionContext
    val ready = AtomicBoolean(false)
    val metrics = ServiceMetrics()
    // Per-request meters off: Micrometer hands out no-op meters for them (registered lazily, after this filter).
    if !settings.requestMeters then
      metrics.registry.config().meterFilter(MeterFilter.deny(_.getName == "http.server.requests"))
    warmAndMeter(system, metrics)

    val soap = SoapClients(settings.enrichment, metrics.registry)
    soap.ioLoops.foreach(metrics.bindSelectorThreads)
    soap.workQueue.foreach(q => metrics.bindPool(PoolProbe.adopt(name, Pools.SoapWorkQueue, q)))
    metrics.bindBreaker(soap.breaker)
    val stores = LettuceProfileStores(settings.enrichment.redis, settings.enrichment.routees)
    metrics.bindProfileStores(stores)
    val routing = ClusterRouting.of(settings.cluster, metrics.registry)
    val pipeline = EnrichmentPipeline(settings.enrichment, soap.client, stores,
      () => metrics.loyaltyUnavailable.increment(), routing)
    metrics.bindEnrichment(() => pipeline.inFlight, settings.enrichment.routees)
    metrics.bindMaxConnections(settings.server.maxConnections)
    val headBytes = HeadBytesBudget(settings.server.maxHeadBytesInProgress)
    metrics.bindHeadBytes(() => headBytes.inProgress, headBytes.limit)

    val timer = TimerPool(Pools.Timer)
    val work = WorkRunner(system, timer, settings.work)
    bulkhead.service.work.WorkMode.values.foreach(mode => metrics.bindWorkInFlight(mode.key, () => work.inFlight(mode)))
    val routes = Routes(work, pipeline, metrics, settings.work.defaultMs, () => ready.get, system.classicSystem.log,
      serveMetrics = settings.metrics == MetricsListener.OnServiceListener)

    def release(): Unit =
      timer.shutdown()
      soap.close()
      stores.close()

    val metricsBound: Future[Option[Http.ServerBinding]] = settings.metrics match
      case MetricsListener.OnServiceListener => Future.successful(None)
      case MetricsListener.Separate(host, port) =>
        Http()(system.classicSystem).newServerAt(host, port).bind(routes.metricsListenerRoute).map(Some(_))

    val bound = metricsBound.flatMap(m =>
      HttpServer.bind(settings, routes.route, if settings.server.fastPath then routes.fastPath else PartialFunction.empty,
        metrics.connections, headBytes).map(_ -> m))
    bound.map { case (binding, metricsBinding) =>
      binding.ioLoops.foreach(metrics.bindSelectorThreads)
      ready.set(true)
      settings.portFile.foreach(f => Files.writeString(Path.of(f), binding.localAddress.getPort.toString))
      val stopped = new java.util.concurrent.atomic.AtomicReference[Future[Done]]()
      def stop(): Future[Done] =
        val mine = scala.concurrent.Promise[Done]()
        if stopped.compareAndSet(null, mine.future) then
          ready.set(false)
          mine.completeWith(
            binding.terminate(settings.shutdownDeadline)
              .flatMap(_ => metricsBinding.fold(Future.successful(Done))(_.terminate(1.second).map(_ => Done)))
              .recover { case _ => Http.HttpServerTerminated }
              .flatMap { _ =>
                release()
                system.terminate()
                system.whenTerminated
              }
              .map { _ =>
                PoolProbe.forget(name)
                Done
              })
        stopped.get
      RunningService(system, binding, metrics, pipeline, () => stop(), metricsBinding)
    }.recover { case e =>
      release()
      system.terminate()
      Await.ready(system.whenTerminated, 10.seconds)
      PoolProbe.forget(name)
      throw e
    }

  /** Makes Pekko create every dispatcher's executor now, so /metrics shows each pool from the first scrape. */
  private def warmAndMeter(system: ActorSystem[?], metrics: ServiceMetrics): Unit =
    val pools = Pools.dispatchers.filter(p => p != Pools.Virtual || Pools.virtualThreadsAvailable)
    val warmed = pools.map(p => Future(())(Pools.executionContext(system, p)))
    Await.ready(Future.sequence(warmed)(implicitly, system.executionContext), 10.seconds)
    pools.foreach(p => metrics.bindPool(PoolProbe(system.name, p)))
