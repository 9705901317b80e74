package bulkhead.lab.testkit

import bulkhead.lab.model.Target
import bulkhead.lab.process.Launch
import bulkhead.lab.record.{RecordJson, RunRecord}

import java.nio.file.{Files, Path}
import scala.io.Source
import scala.util.Using

/** Recorded real outputs (wrk runs, thread dumps) and the launch of the real service built by this reactor. */
object Fixtures:
  def text(name: String): String = Using.resource(Source.fromResource(s"fixtures/$name"))(_.mkString)

  /** A directory of recorded runs (fixtures/records/<name>: result.json files as a benchmark wrote them). */
  def recordsDir(name: String): Path = Path.of(getClass.getResource(s"/fixtures/records/$name").toURI)

  /** The runs of fixtures/records/<name>, read as the lab reads them. */
  def records(name: String): Seq[RunRecord] =
    RecordJson.readAll(recordsDir(name)).fold(e => throw IllegalStateException(e), identity)

  /** A recorded fault run (fixtures/faults/<name>/result.json), read as the lab reads it. */
  def faultRun(name: String): RunRecord =
    RecordJson.read(Path.of(getClass.getResource(s"/fixtures/faults/$name/${RecordJson.FileName}").toURI))
      .fold(e => throw IllegalStateException(e), identity)

  private def classpath(module: String): String =
    val dir = Path.of("..", module).toAbsolutePath.normalize
    val deps = dir.resolve("target/runtime-classpath.txt")
    require(Files.exists(deps), s"$module is not built ($deps missing): run ./bulkhead test from the repository root")
    s"${dir.resolve("target/classes")}:${Files.readString(deps).trim}"

  /** How the lab's tests start the service and the stub: this JVM's java, the flags the launcher would use. */
  def launch: Launch =
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val feature = Runtime.version().feature()
    val flags = (if feature >= 21 then Seq("--add-opens=java.base/java.lang=ALL-UNNAMED") else Nil) ++
      (if feature >= 24 then Seq("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow") else Nil)
    // A peer not built is left out: a test that starts it fails there, naming it (Stack.peer).
    val built = Target.JvmPeers.filter(p => Files.exists(Path.of("..", p.module, "target/runtime-classpath.txt")))
    Launch(java, flags, classpath(Target.Bulkhead.module), classpath("stub"),
      built.map(p => p -> classpath(p.module)).toMap)
