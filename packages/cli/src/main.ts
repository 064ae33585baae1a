import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { listenForCancel } from "./cancel";
import { authStatus, authStatusExit, login, logout, whoami } from "./commands/auth";
import { library, products, releases, updates } from "./commands/catalog";
import { install, setup, uninstall, update } from "./commands/install";
import { licenseCheck } from "./commands/license";
import { crashReports, reportProblem, sendCrashReport } from "./commands/report";
import { countLaunch, usageConsent, usagePush } from "./commands/usage";
import { completionScript } from "./completion";
import { type Context, createContext, type GlobalOptions } from "./context";
import { readEnv } from "./env";
import { CliError, ExitCode, exitCodeHelp } from "./errors";
import { DEFAULT_TIMEOUT_MS } from "./http";
import { folders } from "./paths";
import { resolveProduct } from "./product-match";
import { startUpdateCheck } from "./update-hint";
import { CLIENT_VERSION } from "./version";

const program = new Command("shelf");

function parseTimeout(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new InvalidArgumentError("a number of seconds above 0 (at most 3600) is needed.");
  }
  return seconds;
}

/** Ends the process: stdout is flushed first, and a keychain call still pending cannot hold it open. */
function finish(code: number): never {
  process.exitCode = code;
  process.stdout.write("", () => process.exit(code));
  return undefined as never;
}

/** Whether `--json` was asked for: read from the arguments, since a command line commander refused has no options. */
const jsonAsked = () => {
  const args = process.argv.slice(2);
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--json");
};

/** The `--json` document of a failure, on stdout. */
function printErrorDocument(error: CliError): void {
  const document = {
    error: {
      code: error.code,
      message: error.message,
      hint: error.hint ?? null,
      exit_code: error.exitCode,
      details: error.details ?? null,
    },
  };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

function printError(error: CliError, json: boolean): void {
  if (json) printErrorDocument(error);
  process.stderr.write(error.exitCode === ExitCode.cancelled ? `${error.message}\n` : `Error: ${error.message}\n`);
  if (error.hint) process.stderr.write(`${error.hint}\n`);
}

/**
 * Ends a command the person interrupted: "Cancelled.", exit 130; never a crash, never reported. At once, so that
 * nothing the command was doing says more after it (stdout and stderr are synchronous for files, terminals and pipes
 * on Linux and macOS).
 */
function cancel(): never {
  printError(new CliError("Cancelled.", ExitCode.cancelled, "cancelled"), jsonAsked());
  process.exit(ExitCode.cancelled);
}
listenForCancel(cancel);

/** Ctrl-C at a prompt: the prompt library ends it with this error instead of a signal (the terminal is raw then). */
const isPromptCancel = (error: unknown) => (error as Error | undefined)?.name === "ExitPromptError";

/**
 * Wraps a command: builds its context, prints its JSON document in --json mode, maps failures to exit codes. A command
 * whose answer is a status (`auth status`) names its exit code with `exitOf`.
 */
function action<A extends unknown[], D>(
  run: (context: Context, ...args: A) => Promise<D>,
  exitOf: (document: D) => ExitCode = () => ExitCode.ok,
) {
  return async (...args: A) => {
    const options = program.opts<GlobalOptions>();
    let context: Context | undefined;
    try {
      context = await createContext(readEnv(), folders(), options);
      const hint = startUpdateCheck(context, CLIENT_VERSION);
      const document = await run(context, ...args);
      if (context.json) process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      await hint();
      finish(exitOf(document));
    } catch (error) {
      if (isPromptCancel(error)) cancel();
      if (error instanceof CliError) {
        printError(error, options.json === true);
        finish(error.exitCode);
        return;
      }
      const wrapped = new CliError(
        `shelf failed unexpectedly: ${(error as Error).message ?? String(error)}`,
        ExitCode.failed,
        "internal",
        "If this keeps happening, report it with `shelf report problem`.",
      );
      printError(wrapped, options.json === true);
      if (context && (await sendCrashReport(context, error))) {
        process.stderr.write("A crash report was sent to the service (turn it off: shelf report crashes off).\n");
      }
      finish(ExitCode.failed);
    }
  };
}

program
  .version(CLIENT_VERSION, "-V, --version", "print the client's version")
  .description("The Shelf command-line client: sign in, see your library, install and update what you bought.")
  .addOption(
    new Option(
      "--base-url <url>",
      "the Shelf service (default: the one `shelf login` used, else http://localhost:3000)",
    ).env("SHELF_BASE_URL"),
  )
  .option("--json", "print one JSON document on stdout (shapes in the README)")
  .addOption(
    new Option("--timeout <seconds>", `how long one request may take (default: ${DEFAULT_TIMEOUT_MS / 1000})`)
      .env("SHELF_TIMEOUT")
      .argParser(parseTimeout),
  )
  .showHelpAfterError("(run `shelf --help` for usage)")
  .addHelpText(
    "after",
    `\nEnvironment:\n  SHELF_BASE_URL   the service, like --base-url\n  SHELF_API_KEY    a key to use instead of the stored one (CI); never stored\n  SHELF_TIMEOUT    seconds one request may take, like --timeout\n  SHELF_KEYRING    "off" keeps the key in the 0600 file instead of the OS keychain\n  SHELF_NO_UPDATE_NOTIFIER  any value: no daily "newer shelf available" hint\n\n${exitCodeHelp}`,
  )
  .exitOverride();

program
  .command("login")
  .description("sign in through the browser (device sign-in) and keep the key in the OS keychain or a 0600 file")
  .option("--no-browser", "do not open a browser; just show the address and the code")
  .action(action((context, options: { browser: boolean }) => login(context, options)));

program
  .command("logout")
  .description("revoke this machine's key on the service, then delete it here")
  .action(action((context) => logout(context)));

program
  .command("whoami")
  .description("show the account the key belongs to")
  .action(action((context) => whoami(context)));

program
  .command("auth")
  .description("sign-in details")
  .command("status")
  .description("show whether you are signed in and where the key is kept (keychain, file or environment)")
  .action(action((context) => authStatus(context), authStatusExit));

program
  .command("library")
  .description("list the products you can use")
  .action(action((context) => library(context)));

program
  .command("products")
  .description("list the catalog's products")
  .option("-q, --q <text>", "only products matching the text")
  .action(action((context, options: { q?: string }) => products(context, options)));

program
  .command("releases")
  .description("list a product's releases")
  .argument("<product>", "product id or name")
  .action(action((context, product: string) => releases(context, product)));

program
  .command("updates")
  .description("show which installed products have a newer version")
  .action(action((context) => updates(context)));

const channelOption = () =>
  new Option("--channel <channel>", "release channel to follow").choices(["stable", "beta", "alpha", "dev"]);

program
  .command("install")
  .description("download, verify and install a product (resumes a cut download)")
  .argument("<product>", "product id or name")
  .addOption(channelOption())
  .option("--dir <folder>", "install into this folder instead of the managed one")
  .action(
    action((context, product: string, options: { channel?: string; dir?: string }) =>
      install(context, product, options),
    ),
  );

program
  .command("update")
  .description("install the newest version of installed products (all, or the one named)")
  .argument("[product]", "product id or name")
  .action(action((context, product: string | undefined) => update(context, product)));

program
  .command("uninstall")
  .description("remove an installed product from this machine")
  .argument("<product>", "product id or name")
  .action(action((context, product: string) => uninstall(context, product)));

program
  .command("setup")
  .description("record setup steps of a product's manual as done")
  .argument("<product>", "product id or name")
  .requiredOption("--done <steps>", "step numbers as the manual shows them, e.g. 1,2")
  .action(action((context, product: string, options: { done: string }) => setup(context, product, options)));

program
  .command("license")
  .description("licenses")
  .command("check")
  .description("check this device's license for a product; works offline until its certificate expires")
  .argument("<product>", "product id or name")
  .action(action((context, product: string) => licenseCheck(context, product)));

const usage = program.command("usage").description("share how often you use products (only after you agree)");
usage
  .command("consent")
  .description("agree (on) or stop (off) sharing daily launch counts; off deletes what was not sent")
  .argument("<choice>", "on or off")
  .action(action((context, choice: string) => usageConsent(context, choice)));
usage
  .command("push")
  .description("send the launches counted on this machine since the last push")
  .action(action((context) => usagePush(context)));
usage
  .command("record")
  .description("count one launch of a product (for scripts that start it); nothing without consent")
  .argument("<product>", "product id or name")
  .option("--command <name>", "also count this command of the product")
  .action(
    action(async (context, term: string, options: { command?: string }) => {
      const product = await resolveProduct(await context.api(), term, "library");
      const counted = await countLaunch(context, product.id, options.command);
      context.print(counted ? `Counted a launch of ${product.name}.` : "Not counted: usage sharing is off.");
      return { product_id: product.id, counted };
    }),
  );

const report = program.command("report").description("reports to support");
report
  .command("crashes")
  .description("let shelf send its own unexpected failures to the service (on), or not (off, the default)")
  .argument("<choice>", "on or off")
  .action(action((context, choice: string) => crashReports(context, choice)));
report
  .command("problem")
  .description("report a problem to support (asks for what is missing on a terminal)")
  .option("--summary <text>", "what went wrong, in one line")
  .option("--detail <text>", "what you did and what happened")
  .option("--diagnostics", "attach a diagnostic bundle (client, system and installs; never your key)")
  .action(
    action((context, options: { summary?: string; detail?: string; diagnostics?: boolean }) =>
      reportProblem(context, options),
    ),
  );

program
  .command("completion")
  .description("print a shell completion script: shelf completion bash >> ~/.bashrc")
  .argument("<shell>", "bash, zsh or fish")
  .action((shell: string) => {
    try {
      process.stdout.write(completionScript(program, shell));
      finish(ExitCode.ok);
    } catch (error) {
      printError(new CliError((error as Error).message, ExitCode.usage, "usage"), jsonAsked());
      finish(ExitCode.usage);
    }
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    const shown =
      error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help";
    if (shown) finish(ExitCode.ok);
    // Commander has said it on stderr already; --json still owes its one document on stdout.
    if (jsonAsked()) {
      const message = error.message.replace(/^error: /, "");
      printErrorDocument(new CliError(message, ExitCode.usage, "usage", "Run `shelf --help` for usage."));
    }
    finish(ExitCode.usage);
  } else {
    throw error;
  }
}
