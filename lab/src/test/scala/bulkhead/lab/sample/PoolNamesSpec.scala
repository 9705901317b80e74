package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/**
 * Fixtures: real `jcmd Thread.print -l` dumps of the Jetty peer (Jetty 12.1) and the Tomcat peer (Tomcat 11), each
 * started with `--max-threads 20 --min-threads 8`, before, during (twice for Jetty) and after `wrk -t1 -c50 -d5s` on
 * `/work/pool?ms=100`; and of the service and the Akka HTTP peer.
 */
class PoolNamesSpec extends AnyFlatSpec with Matchers:
  private def pools(fixture: String): Seq[PoolSample] = PoolSample.of(ThreadDump.parse(Fixtures.text(fixture)))
  private val jettyRun = Seq("start", "c50-1", "c50-2", "after").map(s => pools(s"threaddump-jetty-qtp20-$s-jdk25.txt"))
  private val tomcatRun = Seq("start", "c50", "after").map(s => pools(s"threaddump-tomcat-exec20-$s-jdk25.txt"))
  private val TomcatExec = "http-nio-127.0.0.1-auto-1-exec"
  private val MaxThreads = 20
  private val MinThreads = 8

  "PoolNames" should "group a loaded Jetty server's QueuedThreadPool into one short worker pool, its acceptor apart" in {
    val loaded = jettyRun(1)
    val jetty = loaded.filter(p => PoolNames.family(p.pool) == "qtp")
    jetty.map(_.pool).toSet should (contain("qtp") and contain("qtp-acceptor"))
    jetty.map(_.threads).sum shouldBe MaxThreads
    loaded.find(_.pool == "qtp-acceptor").get.threads shouldBe 1
    val workers = loaded.find(_.pool == "qtp").get
    workers.commonBusyFrame.get should include("Thread.sleep")
    loaded.map(_.pool).foreach(label => label.length should be <= 60)
  }

  it should "group Tomcat's connector executor into one pool, its acceptor and poller apart" in {
    val loaded = tomcatRun(1).map(p => p.pool -> p).toMap
    loaded(TomcatExec).threads shouldBe MaxThreads
    loaded(TomcatExec).busy shouldBe MaxThreads
    loaded(TomcatExec).commonBusyFrame.get should include("Thread.sleep")
    loaded("http-nio-127.0.0.1-auto-1-Acceptor").threads shouldBe 1
    loaded("http-nio-127.0.0.1-auto-1-Poller").threads shouldBe 1
    loaded("Catalina-utility").threads shouldBe 2
  }

  it should "tell Jetty 12's selector by its stack, since it keeps a worker's name and moves between threads" in {
    val dump = ThreadDump.parse(Fixtures.text("threaddump-jetty-qtp20-c50-1-jdk25.txt"))
    val selecting = dump.threads.filter(_.frames.exists(_.contains("ManagedSelector$SelectorProducer.select")))
    selecting should not be empty
    selecting.foreach { t =>
      t.name should fullyMatch regex """qtp\d+-\d+"""
      t.pool shouldBe "qtp-selector"
    }
    dump.threads.filter(_.pool == "qtp").foreach(_.frames.mkString should not include "ManagedSelector.select")
  }

  it should "give the same labels whatever identity hash a run gives the pool and its connector" in {
    val labels = Seq("qtp1996181658-24-acceptor-0@6a1ccc70-oejs.ServerConnector@64db2f43{HTTP/1.1, (http/1.1)}{127.0.0.1:46583}",
      "qtp1123226989-15-acceptor-0@5e0ef4b5-ServerConnector@3c0a50da{HTTP/1.1, (http/1.1)}{0.0.0.0:8080}")
      .map(PoolNames.label)
    labels.distinct shouldBe Seq("qtp-acceptor")
    Seq("qtp1996181658-23", "qtp1123226989-16").map(PoolNames.label).distinct shouldBe Seq("qtp")
    Seq("Scheduler-1685232414-1", "Scheduler-98765432-1").map(PoolNames.label).distinct shouldBe Seq("Scheduler")
  }

  it should "normalise the Lettuce, Pekko and fork-join thread names of the recorded service dump" in {
    val labels = pools("threaddump-pool4-jdk25.txt").map(p => p.pool -> p.threads).toMap
    labels("bulkhead.redis.lettuce-nioEventLoop") shouldBe 2
    labels("bulkhead.redis.lettuce-eventExecutorLoop") shouldBe 2
    labels("bulkhead-pekko.actor.default-dispatcher") shouldBe 8
    labels("bulkhead-pekko.actor.internal-dispatcher") shouldBe 4
    labels("bulkhead-bulkhead.dispatch.blocking-pool") shouldBe 4
    labels("ForkJoinPool-3-worker") shouldBe 1
    labels("bulkhead.redis.lettuce-timer") shouldBe 1
    labels.keySet should contain allOf ("bulkhead-scheduler", "VirtualThread-unblocker", "main")
  }

  it should "keep an Akka dispatcher's configuration path, the seeds' custom dispatcher included" in {
    val labels = pools("threaddump-akka-http-pool200-jdk17.txt").map(p => p.pool -> p.threads).toMap
    labels("akka-http-peer-my-blocking-dispatcher") shouldBe 200
    labels("akka-http-peer-akka.actor.default-dispatcher") shouldBe 8
    labels("akka-http-peer-akka.io.pinned-dispatcher") shouldBe 1
  }

  it should "label the pools of servers and clients named by their frameworks' defaults" in {
    Map(
      "http-nio-8080-exec-17" -> "http-nio-8080-exec",
      "http-nio-8080-Acceptor" -> "http-nio-8080-Acceptor",
      "http-nio-8080-Poller" -> "http-nio-8080-Poller",
      "http-nio-8080-ClientPoller-0" -> "http-nio-8080-ClientPoller",
      "nioEventLoopGroup-2-1" -> "nioEventLoopGroup-2",
      "nioEventLoopGroup-3-12" -> "nioEventLoopGroup-3",
      "epollEventLoopGroup-4-3" -> "epollEventLoopGroup-4",
      "lettuce-epollEventLoop-4-1" -> "lettuce-epollEventLoop-4",
      "lettuce-nioEventLoop-5-2" -> "lettuce-nioEventLoop-5",
      "ForkJoinPool-1-worker-3" -> "ForkJoinPool-1-worker",
      "ForkJoinPool.commonPool-worker-11" -> "ForkJoinPool.commonPool-worker",
      "orders-pekko.actor.default-dispatcher-5" -> "orders-pekko.actor.default-dispatcher",
      "orders-akka.actor.default-dispatcher-5" -> "orders-akka.actor.default-dispatcher",
      "orders-akka.actor.blocking-io.dispatcher-17" -> "orders-akka.actor.blocking-io.dispatcher",
      "bulkhead-bulkhead.dispatch.virtual-virtual-thread-12" -> "bulkhead-bulkhead.dispatch.virtual-virtual-thread",
      "HttpClient@3d3fcdb0-23" -> "HttpClient",
      "RMI TCP Connection(3)-127.0.0.1" -> "RMI TCP Connection",
      "pool-3-thread-7" -> "pool-3-thread",
      "GC Thread#1" -> "GC Thread",
      "C2 CompilerThread0" -> "C2 CompilerThread",
      "main" -> "main"
    ).foreach((name, label) => withClue(name)(PoolNames.label(name) shouldBe label))
  }

  it should "label Pekko's virtual threads by their dispatcher, the pool its gauges name, and no platform thread so" in {
    val name = "bulkhead-bulkhead.dispatch.virtual-pool-virtual-thread-12227"
    def thread(virtual: Boolean) = DumpedThread(name, "TIMED_WAITING", Nil, None, Nil, None, virtual = virtual)
    PoolNames.of(thread(virtual = true)) shouldBe "bulkhead-bulkhead.dispatch.virtual-pool"
    PoolNames.of(thread(virtual = false)) shouldBe "bulkhead-bulkhead.dispatch.virtual-pool-virtual-thread"
  }

  it should "put the roles Jetty lends from its pool in the pool's family, and nothing else" in {
    PoolNames.family("qtp-acceptor") shouldBe "qtp"
    PoolNames.family("qtp-selector") shouldBe "qtp"
    PoolNames.family("qtp") shouldBe "qtp"
    PoolNames.family("http-nio-8080-Acceptor") shouldBe "http-nio-8080-Acceptor"
  }

  "PoolSize" should "infer the Jetty pool's --max-threads and --min-threads from its samples over a run" in {
    val qtp = PoolSize.infer(jettyRun).find(_.pool == "qtp").get
    qtp.size shouldBe MaxThreads
    qtp.workers should be < MaxThreads
    jettyRun.head.filter(p => PoolNames.family(p.pool) == "qtp").map(_.threads).sum shouldBe MinThreads
    qtp.busy should have size jettyRun.size
  }

  it should "count the workers busy at each sample: none before and after the load, most of them during it" in {
    val qtp = PoolSize.infer(jettyRun).find(_.pool == "qtp").get
    qtp.busy.head shouldBe 0
    qtp.busy.last shouldBe 0
    qtp.busy.slice(1, 3).foreach(_ should be >= qtp.workers - 3)
    qtp.maxBusy shouldBe qtp.busy.max
  }

  it should "infer Tomcat's maxThreads and minSpareThreads, its workers busy only under load" in {
    val exec = PoolSize.infer(tomcatRun).find(_.pool == TomcatExec).get
    (exec.size, exec.workers) shouldBe (MaxThreads, MaxThreads)
    exec.busy shouldBe Seq(0, MaxThreads, 0)
    tomcatRun.head.find(_.pool == TomcatExec).get.threads shouldBe MinThreads
  }

  it should "size a pool no role borrows from as the most threads it had at once" in {
    val akka = PoolSize.infer(Seq(pools("threaddump-akka-http-pool200-jdk17.txt")))
      .find(_.pool == "akka-http-peer-my-blocking-dispatcher").get
    (akka.size, akka.workers) shouldBe (200, 200)
  }
