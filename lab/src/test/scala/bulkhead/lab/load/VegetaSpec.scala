package bulkhead.lab.load

import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.attribute.PosixFilePermissions
import java.nio.file.{Files, Path}

/** Where the lab finds vegeta: on the PATH first, then the repository's, and never a build of its own. */
class VegetaSpec extends AnyFlatSpec with Matchers:
  private def executable(dir: Path, name: String): Path =
    val f = Files.writeString(dir.resolve(name), "#!/bin/sh\nexit 0\n")
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"))
    f

  "OnPath" should "find the first executable of a name along the PATH, and nothing for a name not there" in {
    val (a, b) = (Scratch.dir("path-a"), Scratch.dir("path-b"))
    Files.writeString(a.resolve("tool"), "not executable")
    val second = executable(b, "tool")
    OnPath.find("tool", s"$a:$b") shouldBe Some(second)
    OnPath.find("tool", s"$a") shouldBe None
  }

  "Vegeta" should "take the one on the PATH before the repository's" in {
    val (onPath, repository) = (Scratch.dir("vegeta-path"), Scratch.dir("vegeta-repo"))
    val mine = executable(onPath, "vegeta")
    executable(repository, "vegeta")
    Vegeta.binary(onPath.toString, Some(repository)) shouldBe Right(mine)
    Vegeta.binary("", Some(repository)) shouldBe Right(repository.resolve("vegeta"))
  }

  it should "say how to get one, building nothing, when there is none" in {
    val empty = Scratch.dir("vegeta-none")
    sys.props.get("bulkhead.vegeta") shouldBe None
    val err = Vegeta.binary(empty.toString, Some(empty)).left.toOption.get
    err should include("brew install vegeta")
    err should include(s"go install ${Vegeta.Module}@${Vegeta.Version}")
    Files.list(empty).count() shouldBe 0
  }
