package bulkhead.lab.faults

import bulkhead.lab.process.Children

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * A partition of one node's cluster traffic, made real with nftables: its process runs in a cgroup (v2) of its own
 * from its start, and [[cut]] drops every TCP packet that one of its sockets sends to, or receives from, a cluster
 * (Artery) port, both ways; its HTTP, Redis and SOAP traffic flow on. A socket keeps the cgroup it was created in,
 * hence the victim starts in it ([[prefix]]) rather than being moved there. The rules go in a table of the lab's own,
 * and only in a network namespace of its own (`./bulkhead lab cluster-faults` runs under `unshare --net`): the
 * host's firewall is never touched. [[close]] removes the rules and the cgroup.
 */
final class Partition private (cgroup: Path, nftPath: String, dir: Path):
  /** A command prefix that starts a process in the partition's cgroup (`exec`: the same PID). */
  def prefix: Seq[String] =
    Seq("sh", "-c", s"echo $$$$ > '${cgroup.resolve("cgroup.procs")}' && exec \"$$@\"", "sh")

  /** Drops the cgroup's traffic to and from the cluster `ports`. */
  def cut(ports: Seq[Int]): Unit =
    val victim = s"""socket cgroupv2 level ${Partition.Level} "$nftPath""""
    val rules =
      s"""table inet ${Partition.Table} {
         |  set artery { type inet_service; elements = { ${ports.mkString(", ")} } }
         |  chain out {
         |    type filter hook output priority 0; policy accept;
         |    $victim tcp dport @artery drop
         |    $victim tcp sport @artery drop
         |  }
         |  chain in {
         |    type filter hook input priority 0; policy accept;
         |    $victim tcp dport @artery drop
         |    $victim tcp sport @artery drop
         |  }
         |}
         |""".stripMargin
    val file = dir.resolve("partition.nft")
    Files.writeString(file, rules)
    Children.runToCompletion(Seq("nft", "-f", file.toString), 10.seconds)
      .fold(e => throw IllegalStateException(s"nft could not add the partition's rules: $e"), _ => ())

  /** Removes the rules; the cluster's traffic flows again. */
  def heal(): Unit =
    Children.runToCompletion(Seq("nft", "delete", "table", "inet", Partition.Table), 10.seconds)
      .fold(e => throw IllegalStateException(s"nft could not remove the partition's rules: $e"), _ => ())

  /** The rules (if any) and the cgroup removed; a process still in it is moved back to the cgroup's parent first. */
  def close(): Unit =
    Try(heal())
    Try(Files.readAllLines(cgroup.resolve("cgroup.procs")).asScala.filter(_.nonEmpty).foreach(pid =>
      Files.writeString(cgroup.getParent.resolve("cgroup.procs"), pid)))
    Try(Files.delete(cgroup))

object Partition:
  val Table = "bulkhead_partition"
  /** The cgroup is made at the top of the cgroup v2 hierarchy: level 1 of `socket cgroupv2`. */
  private val Level = 1
  /** Where nft resolves a `socket cgroupv2` path from. */
  private val NftRoot = Path.of("/sys/fs/cgroup")

  /**
   * Right with a partition ready for its victim (its cgroup made, under `dir` its rules' file), or Left with what
   * this machine lacks: a network namespace of the lab's own, nft, a writable cgroup v2 hierarchy under /sys/fs/cgroup.
   */
  def open(dir: Path): Either[String, Partition] =
    def netns(pid: String) = Try(Files.readSymbolicLink(Path.of(s"/proc/$pid/ns/net")).toString).toOption
    val mount = Try(Files.readAllLines(Path.of("/proc/self/mounts")).asScala.map(_.split(' '))
      .collectFirst { case f if f.length > 2 && f(2) == "cgroup2" => Path.of(f(1)) }).toOption.flatten
    if netns("self").isEmpty || netns("self") == netns("1") then
      Left("the partition adds firewall rules, which the lab adds only in a network namespace of its own: run it " +
        "through ./bulkhead as root, which runs lab cluster-faults under unshare --net")
    else if Children.runToCompletion(Seq("nft", "--version"), 10.seconds).isLeft then
      Left("nft is missing (apt-get install nftables)")
    else mount.filter(_.startsWith(NftRoot)) match
      case None => Left("no cgroup v2 hierarchy mounted under /sys/fs/cgroup, which nft's socket cgroupv2 needs")
      case Some(root) =>
        val cgroup = root.resolve(s"bulkhead-partition-${ProcessHandle.current().pid()}")
        Try(Files.createDirectories(cgroup)).toEither.left.map(e => s"cannot make the cgroup $cgroup: $e")
          .map(_ => Partition(cgroup, NftRoot.relativize(cgroup).toString, dir))
