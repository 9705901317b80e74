package bulkhead.lab.process

import bulkhead.service.HeapBudget
import bulkhead.service.config.ServiceSettings
import com.typesafe.config.ConfigFactory
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The heap the lab gives the service as shipped against the one the service asks for. */
class ServeHeapSpec extends AnyFlatSpec with Matchers:
  "Stack.ServeHeap" should "be the heap ./bulkhead serve gives the shipped settings, which the service accepts" in {
    val shipped = ServiceSettings(ConfigFactory.load())
    Stack.ServeHeap shouldBe HeapBudget.xmx(shipped)
    HeapBudget.check(Stack.ServeHeap.stripPrefix("-Xmx").stripSuffix("m").toLong << 20, shipped) shouldBe Right(())
  }
