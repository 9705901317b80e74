package bulkhead.stub

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{Callable, Executors}

class SoapMessagesSpec extends AnyFlatSpec with Matchers:
  private def request(id: String) =
    (s"""<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SoapMessages.EnvelopeNs}" """ +
      s"""xmlns:cus="${SoapMessages.CustomersNs}"><soapenv:Body><cus:GetCustomer><cus:customerId>$id""" +
      "</cus:customerId></cus:GetCustomer></soapenv:Body></soapenv:Envelope>").getBytes(UTF_8)

  "SoapMessages.readGetCustomer" should "read the customer id of a GetCustomer request" in {
    SoapMessages.readGetCustomer(request("42")) shouldBe Right(42L)
    SoapMessages.readGetCustomer(request(" 7 ")) shouldBe Right(7L)
  }

  it should "refuse what is not a GetCustomer request, saying why" in {
    SoapMessages.readGetCustomer("<a>".getBytes(UTF_8)).left.toOption.get should include("not well-formed")
    SoapMessages.readGetCustomer(SoapMessages.xxe).left.toOption.get should include("DOCTYPE")
    SoapMessages.readGetCustomer(request("x1")).left.toOption.get should include("'x1' is not a number")
    SoapMessages.readGetCustomer(request("")).left.toOption.get should include("missing")
    SoapMessages.readGetCustomer("<r/>".getBytes(UTF_8)).left.toOption.get should include("not a SOAP 1.1 Envelope")
  }

  // Each thread reuses its parser: one left mid-document by a refused request must not spoil the next.
  it should "read a good request after a refused one on the same thread, on every thread" in {
    val pool = Executors.newFixedThreadPool(4)
    try
      val tasks = (1 to 200).map { i =>
        pool.submit((() =>
          if i % 3 == 0 then SoapMessages.readGetCustomer(SoapMessages.malformed).isLeft shouldBe true
          else if i % 5 == 0 then SoapMessages.readGetCustomer(SoapMessages.billionLaughs).isLeft shouldBe true
          SoapMessages.readGetCustomer(request(i.toString))): Callable[Either[String, Long]])
      }
      tasks.zipWithIndex.foreach((t, n) => t.get() shouldBe Right(n + 1L))
    finally pool.shutdownNow()
  }
