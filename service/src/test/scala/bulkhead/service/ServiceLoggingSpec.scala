package bulkhead.service

import ch.qos.logback.classic.{AsyncAppender, LoggerContext}
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.core.{AppenderBase, ConsoleAppender}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.slf4j.LoggerFactory

import java.util.concurrent.CountDownLatch

import scala.jdk.CollectionConverters.*

/** The service's logback.xml, as the logger context loaded it. */
class ServiceLoggingSpec extends AnyFlatSpec with Matchers:

  private val context = LoggerFactory.getILoggerFactory.asInstanceOf[LoggerContext]
  private val root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)

  "The service's log" should "go through a bounded asynchronous appender that never blocks and keeps WARN longest" in {
    val appenders = root.iteratorForAppenders().asScala.toList
    appenders.map(_.getName) shouldBe List("ASYNC")
    val async = appenders.head.asInstanceOf[AsyncAppender]
    async.isStarted shouldBe true
    async.getQueueSize shouldBe 8192
    async.isNeverBlock shouldBe true
    // Below this many free slots, events under WARN are dropped (AsyncAppender.isDiscardable).
    async.getDiscardingThreshold shouldBe 8192 / 5
    async.isIncludeCallerData shouldBe false
    async.getAppender("STDOUT") shouldBe a[ConsoleAppender[?]]
  }

  it should "return at once from logging calls while its writer is stalled and its queue full" in {
    val configured = root.getAppender("ASYNC").asInstanceOf[AsyncAppender]
    // The same settings in front of a writer that blocks until released (a full pipe on stdout).
    val release = CountDownLatch(1)
    val stalled = new AppenderBase[ILoggingEvent]:
      def append(event: ILoggingEvent): Unit = release.await()
    stalled.setContext(context)
    stalled.setName("stalled")
    stalled.start()
    val async = AsyncAppender()
    async.setContext(context)
    async.setQueueSize(configured.getQueueSize)
    async.setDiscardingThreshold(configured.getDiscardingThreshold)
    async.setNeverBlock(configured.isNeverBlock)
    async.addAppender(stalled)
    async.start()
    val logger = context.getLogger("bulkhead.test.stalled")
    logger.setAdditive(false)
    logger.addAppender(async)
    try
      val start = System.nanoTime()
      // WARN is never discarded below the threshold: only neverBlock keeps the third queueful from waiting.
      (1 to 3 * configured.getQueueSize).foreach(i => logger.warn("event {}", i))
      (System.nanoTime() - start) / 1e9 should be < 2.0
      async.getRemainingCapacity shouldBe 0
    finally
      release.countDown()
      logger.detachAndStopAllAppenders()
  }
