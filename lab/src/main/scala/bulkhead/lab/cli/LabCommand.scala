package bulkhead.lab.cli

import scopt.{OEffect, OParser}

/** A subcommand of `./bulkhead lab`: its name, a line for the command list, and its own parser with `--help`. */
trait LabCommand:
  def name: String
  def summary: String
  /** Runs with the arguments after the subcommand's name; the process's exit code. */
  def main(args: Seq[String]): Int

object LabCommand:
  /**
   * Parses with scopt and runs: `--help` (or `-h`, as the launcher and `lab -h` take it) prints the usage and gives
   * exit 0, a bad flag or value prints scopt's message (naming it) and gives exit 2; nothing runs in either case.
   */
  def parse[A](parser: OParser[?, A], args: Seq[String], init: A)(run: A => Int): Int =
    val (result, effects) = OParser.runParser(parser, args.map(a => if a == "-h" then "--help" else a), init)
    // `--help` ends the parse: print the usage alone, not the required options it was not given.
    val helped = effects.exists { case OEffect.Terminate(Right(_)) => true; case _ => false }
    effects.foreach {
      case OEffect.DisplayToOut(msg) => println(msg)
      case OEffect.DisplayToErr(msg) => if !helped then System.err.println(msg)
      case OEffect.ReportError(msg) => if !helped then System.err.println(s"Error: $msg")
      case OEffect.ReportWarning(msg) => if !helped then System.err.println(s"Warning: $msg")
      case OEffect.Terminate(_) => ()
    }
    if helped then 0 else result.fold(2)(run)
