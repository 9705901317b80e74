package bulkhead.lab.process

import java.nio.file.attribute.{PosixFileAttributeView, PosixFilePermission}
import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * A throwaway PostgreSQL server from the OS packages, for the zoo's hikari-pg and spring-hikari: a data directory made
 * afresh under the run's directory (initdb, trust authentication, no fsync: nothing in it must outlive the run), TCP on
 * a free loopback port only, deleted by [[drop]] once stopped. PostgreSQL refuses to run as root, so as root initdb and
 * the server run as the `postgres` user (runuser) on a directory it owns.
 */
object Postgres:
  /** Where Debian's packages put each major version's programs. */
  private val Versions = Path.of("/usr/lib/postgresql")

  /** The URL the zoo connects to (its --jdbc-url): the `postgres` database and role, trusted. */
  def jdbcUrl(served: Served): String = s"jdbc:postgresql://127.0.0.1:${served.port}/postgres?user=postgres"

  def start(into: Path): Served =
    val bin = binaries()
    val run = into.toAbsolutePath
    val dir = run.resolve("postgres")
    Files.createDirectories(dir)
    if asRoot then handOver(run, dir)
    val data = dataOf(into)
    // 1 MB WAL segments: the data directory is 28 MB instead of 40.
    Children.runToCompletion(as ++ Seq(bin.resolve("initdb").toString, "-D", data, "-U", "postgres", "--auth=trust",
        "-E", "UTF8", "--no-sync", "--wal-segsize=1"), 60.seconds)
      .left.foreach(e => throw IllegalStateException(s"postgres: initdb failed: $e"))
    val port = Stack.freePort()
    val child = Children.start("postgres", as ++ Seq(bin.resolve("postgres").toString, "-D", data, "-p", port.toString,
      "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"), run)
    Stack.awaitPort(child, port, 30.seconds)
    awaitReady(bin, child, port)
    Served(child, port)

  /**
   * Stops the server started in `into` and waits until it has exited: PostgreSQL's fast shutdown (its sessions ended,
   * as a throwaway database allows), then what is left of the process. As root the server's process is runuser's child,
   * and the SIGTERM of [[Child.stop]] would reach runuser, which passes it on and then waits 2 s before it kills.
   */
  def stop(into: Path, served: Served): Unit =
    if served.child.isAlive then
      Children.runToCompletion(as ++ Seq(binaries().resolve("pg_ctl").toString, "stop", "-D", dataOf(into), "-m",
        "fast", "-w", "-t", "10"), 20.seconds)
    served.child.stop()

  /** Deletes the data directory under `into`, once its server is stopped. */
  def drop(into: Path): Unit =
    val dir = into.toAbsolutePath.resolve("postgres")
    if Files.exists(dir) then
      val paths = Files.walk(dir)
      try paths.iterator().asScala.toSeq.reverse.foreach(Files.deleteIfExists)
      finally paths.close()

  private def asRoot: Boolean = System.getProperty("user.name") == "root"
  /** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user. */
  private def as: Seq[String] = if asRoot then Seq("runuser", "-u", "postgres", "--") else Nil
  private def dataOf(into: Path): String = into.toAbsolutePath.resolve("postgres").resolve("data").toString

  /** The programs of the newest major version installed. */
  private def binaries(): Path =
    val installed =
      if !Files.isDirectory(Versions) then Nil
      else
        val listed = Files.list(Versions)
        try listed.iterator().asScala.map(_.resolve("bin")).filter(b => Files.isExecutable(b.resolve("postgres"))).toSeq
        finally listed.close()
    installed.sortBy(_.getParent.getFileName.toString.toIntOption.getOrElse(0)).lastOption.getOrElse(throw
      IllegalStateException(s"PostgreSQL is not installed (no $Versions/*/bin/postgres): apt-get install postgresql " +
        "(./bulkhead installs it as root)"))

  /**
   * Gives `dir` to the `postgres` user and lets it reach it: the run's directory may be private to root (a temporary
   * one is), so it gets the right to pass through, no more; a directory above it that is closed is named, not opened.
   */
  private def handOver(run: Path, dir: Path): Unit =
    val users = dir.getFileSystem.getUserPrincipalLookupService
    val view = Files.getFileAttributeView(dir, classOf[PosixFileAttributeView])
    view.setOwner(users.lookupPrincipalByName("postgres"))
    view.setGroup(users.lookupPrincipalByGroupName("postgres"))
    val passable = Files.getPosixFilePermissions(run).asScala + PosixFilePermission.OTHERS_EXECUTE
    Files.setPosixFilePermissions(run, passable.asJava)
    Iterator.iterate(run.getParent)(_.getParent).takeWhile(_ != null)
      .find(p => !Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE))
      .foreach(closed => throw IllegalStateException(
        s"postgres: the postgres user cannot reach $dir through $closed (chmod o+x it, or run the lab elsewhere)"))

  /** Until the server accepts a session (a port open while it recovers would refuse one), at most 30 s. */
  private def awaitReady(bin: Path, child: Child, port: Int): Unit =
    val deadline = System.nanoTime() + 30.seconds.toNanos
    val probe = Seq(bin.resolve("pg_isready").toString, "-q", "-h", "127.0.0.1", "-p", port.toString, "-U", "postgres")
    while Children.runToCompletion(probe, 10.seconds).isLeft do
      if !child.isAlive || System.nanoTime() > deadline then
        child.stop()
        throw IllegalStateException(
          s"postgres never accepted a session on port $port; see ${child.log}:\n${child.logTail}")
      Thread.sleep(100)
