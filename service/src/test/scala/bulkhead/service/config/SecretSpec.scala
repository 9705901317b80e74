package bulkhead.service.config

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class SecretSpec extends AnyFlatSpec with Matchers:

  "A Secret" should "not print its value" in {
    val secret = Secret("hunter2-pw")
    secret.toString shouldBe "***"
    s"password $secret" should not include "hunter2-pw"
    secret.reveal shouldBe "hunter2-pw"
  }

  "Redaction" should "hide URI credentials and known secrets in a message" in {
    Redaction("cannot connect to redis://:hunter2@127.0.0.1:6379/0 and rediss://user:pw@h:1") shouldBe
      "cannot connect to redis://***@127.0.0.1:6379/0 and rediss://***@h:1"
    Redaction("auth failed for hunter2", Seq("hunter2")) shouldBe "auth failed for ***"
    Redaction("redis://127.0.0.1:6379") shouldBe "redis://127.0.0.1:6379"
    Redaction.hasCredentials("redis://secret@host") shouldBe true
    Redaction.hasCredentials("redis://host:6379/0") shouldBe false
  }
