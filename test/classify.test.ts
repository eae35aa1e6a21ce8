// What a remote SMTP reply means (config/smtp-replies.json): delivered, deferred or bounced, hard or soft, and why.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ConfigError } from '../shared/config.js';
import { projectPath } from '../shared/paths.js';
import { classifyReply, outcomeOf, parseReply, replyFromDsn, replyFromError } from '../mta/replies/classify.js';
import { loadReplyRules, type ReplyClass, type ReplyResult } from '../shared/policies/smtp-replies.js';

/** The shipped rules (config/smtp-replies.json), loaded once as the MTA loads them. */
const shipped = loadReplyRules();

type Expect = [ReplyResult, ReplyClass, boolean];
type Case = { from: string; reply: string; expect: Expect };

const HARD = true;
const SOFT = false;

// Real-world-shaped replies, as a receiving server or a DSN's Diagnostic-Code gives them: a table, one per line.
// prettier-ignore
const CORPUS: Case[] = [
  // Gmail
  { from: 'Gmail', reply: "550-5.1.1 The email account that you tried to reach does not exist. Please try\r\n550-5.1.1 double-checking the recipient's email address for typos or\r\n550-5.1.1 unnecessary spaces. For more information, go to\r\n550 5.1.1  https://support.google.com/mail/?p=NoSuchUser d9-20020a05600c34c900b0040e3635ca65si1234567wmq.123 - gsmtp", expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Gmail', reply: '452-4.2.2 The email account that you tried to reach is over quota. Please direct\r\n452-4.2.2 the recipient to\r\n452 4.2.2  https://support.google.com/mail/?p=OverQuotaTemp a1si123456qkb.123 - gsmtp', expect: ['deferred', 'mailbox_full', SOFT] },
  { from: 'Gmail', reply: '421-4.7.0 [203.0.113.5      15] Our system has detected an unusual rate of\r\n421-4.7.0 unsolicited mail originating from your IP address. To protect our\r\n421-4.7.0 users from spam, mail sent from your IP address has been temporarily\r\n421-4.7.0 rate limited. For more information, go to\r\n421 4.7.0  https://support.google.com/mail/?p=UnsolicitedRateLimitError - gsmtp', expect: ['deferred', 'reputation', SOFT] },
  { from: 'Gmail', reply: "550-5.7.26 Unauthenticated email from example.com is not accepted due to domain's\r\n550-5.7.26 DMARC policy. Please contact the administrator of example.com domain if\r\n550 5.7.26 this was a legitimate mail. https://support.google.com/mail/answer/2451690 - gsmtp", expect: ['bounced', 'auth_failure', SOFT] },
  { from: 'Gmail', reply: '550-5.7.1 [203.0.113.5] Our system has detected that this message is likely\r\n550-5.7.1 unsolicited mail. To reduce the amount of spam sent to Gmail, this\r\n550-5.7.1 message has been blocked. For more information, go to\r\n550 5.7.1  https://support.google.com/mail/?p=UnsolicitedMessageError - gsmtp', expect: ['bounced', 'content_rejected', SOFT] },
  { from: 'Gmail', reply: '550-5.2.1 The email account that you tried to reach is disabled. Learn more at\r\n550 5.2.1  https://support.google.com/mail/?p=DisabledUser - gsmtp', expect: ['bounced', 'mailbox_disabled', HARD] },
  { from: 'Gmail', reply: '450-4.2.1 The user you are trying to contact is receiving mail at a rate that\r\n450-4.2.1 prevents additional messages from being delivered. Please resend your\r\n450 4.2.1 message at a later time. - gsmtp', expect: ['deferred', 'rate_limited', SOFT] },
  { from: 'Gmail', reply: "552-5.2.3 Your message exceeded Google's message size limits. Please visit\r\n552 5.2.3  https://support.google.com/mail/?p=MaxSizeError - gsmtp", expect: ['bounced', 'message_too_large', SOFT] },
  { from: 'Gmail', reply: '550-5.7.25 [203.0.113.5] The IP address sending this message does not have a\r\n550-5.7.25 PTR record setup, or the corresponding forward DNS entry does not\r\n550 5.7.25 point to the sending IP. - gsmtp', expect: ['bounced', 'auth_failure', SOFT] },
  { from: 'Gmail', reply: '550-5.7.1 [203.0.113.5] Gmail has detected that this message is likely suspicious\r\n550 5.7.1 due to the very low reputation of the sending domain. - gsmtp', expect: ['bounced', 'reputation', SOFT] },
  { from: 'Gmail', reply: '421-4.3.0 Temporary System Problem.  Try again later (10). - gsmtp', expect: ['deferred', 'temporary', SOFT] },
  { from: 'Gmail', reply: '552-5.7.0 This message was blocked because its content presents a potential\r\n552 5.7.0 security issue. Please visit https://support.google.com/mail/?p=BlockedMessage - gsmtp', expect: ['bounced', 'content_rejected', SOFT] },
  { from: 'Gmail', reply: '421-4.7.28 [203.0.113.5] Our system has detected an unusual rate of unsolicited mail originating from your DKIM domain [example.com 12]. - gsmtp', expect: ['deferred', 'reputation', SOFT] },
  // Microsoft: Outlook.com, Office 365, Exchange
  { from: 'Outlook.com', reply: '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [AM0PR01MB1234.eurprd01.prod.outlook.com]', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Office 365', reply: '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [DB5EUR01FT012.eop-EUR01.prod.protection.outlook.com]', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Outlook.com', reply: '451 4.7.500 Server busy. Please try again later from [203.0.113.5]. (S77719) [VI1EUR04FT012.eop-eur04.prod.protection.outlook.com]', expect: ['deferred', 'rate_limited', SOFT] },
  { from: 'Outlook.com', reply: "550 5.7.1 Unfortunately, messages from [203.0.113.5] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150). You can also refer your provider to http://mail.live.com/mail/troubleshooting.aspx#errors.", expect: ['bounced', 'spam_block', SOFT] },
  { from: 'Office 365', reply: '550 5.7.606 Access denied, banned sending IP [203.0.113.5]. To request removal from this list please visit https://sender.office.com/ and follow the directions.', expect: ['bounced', 'spam_block', SOFT] },
  { from: 'Exchange', reply: '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Exchange', reply: '550 5.1.1 RESOLVER.ADR.ExRecipNotFound; not found', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Exchange', reply: '554 5.4.14 Hop count exceeded - possible mail loop ATTR34 [DM6NAM12FT034.eop-nam12.prod.protection.outlook.com]', expect: ['bounced', 'network', SOFT] },
  { from: 'Exchange', reply: '554 5.2.2 mailbox full; STOREDRV.Deliver.Exception:QuotaExceededException.MapiExceptionShutoffQuotaExceeded', expect: ['bounced', 'mailbox_full', SOFT] },
  { from: 'Exchange', reply: '550 5.7.1 RESOLVER.RST.AuthRequired; authentication required [Stage: CreateMessage]', expect: ['bounced', 'policy', SOFT] },
  { from: 'Office 365', reply: '451 4.7.650 The mail server [203.0.113.5] has been temporarily rate limited due to IP reputation. For e-mail delivery information, see https://postmaster.live.com (S775)', expect: ['deferred', 'reputation', SOFT] },
  { from: 'Office 365', reply: "550 5.7.509 Access denied, sending domain example.com does not pass DMARC verification and has a DMARC policy of reject.", expect: ['bounced', 'auth_failure', SOFT] },
  { from: 'Office 365', reply: '550 5.7.708 Service unavailable. Access denied, traffic not accepted from this IP.', expect: ['bounced', 'policy', SOFT] },
  // Yahoo and AOL
  { from: 'Yahoo', reply: '554 5.7.9 Message not accepted for policy reasons.  See https://postmaster.yahooinc.com/error-codes', expect: ['bounced', 'policy', SOFT] },
  { from: 'Yahoo', reply: '421 4.7.0 [TSS04] Messages from 203.0.113.5 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes', expect: ['deferred', 'reputation', SOFT] },
  { from: 'Yahoo', reply: "553 5.7.1 [BL21] Connections will not be accepted from 203.0.113.5, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes", expect: ['bounced', 'spam_block', SOFT] },
  { from: 'Yahoo', reply: "554 delivery error: dd This user doesn't have a yahoo.com account (someone@yahoo.com) [0] - mta1234.mail.gq1.yahoo.com", expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Yahoo', reply: '554 delivery error: dd Sorry your message to someone@yahoo.com cannot be delivered. This mailbox is disabled (554.30). - mta1234.mail.bf1.yahoo.com', expect: ['bounced', 'mailbox_disabled', HARD] },
  { from: 'AOL', reply: '521 5.2.1 :  AOL will not accept delivery of this message.', expect: ['bounced', 'policy', SOFT] },
  { from: 'AOL', reply: '554 5.7.9 Message not accepted for policy reasons.  See https://postmaster.yahooinc.com/error-codes', expect: ['bounced', 'policy', SOFT] },
  // Postfix
  { from: 'Postfix', reply: '553 5.1.1 <someone@example.org>: Recipient address rejected: User unknown', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Postfix', reply: '550 5.1.1 <someone@example.org>: Recipient address rejected: User unknown in virtual mailbox table', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Postfix', reply: '550 5.1.1 <someone@example.org>: Recipient address rejected: User unknown in local recipient table', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Postfix', reply: '450 4.1.8 <bounces+abc@send.example.com>: Sender address rejected: Domain not found', expect: ['deferred', 'policy', SOFT] },
  { from: 'Postfix', reply: '553 5.1.8 <bounces+abc@send.example.com>: Sender address rejected: Domain not found', expect: ['bounced', 'policy', SOFT] },
  { from: 'Postfix', reply: '450 4.2.0 <someone@example.org>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.org.html', expect: ['deferred', 'greylisted', SOFT] },
  { from: 'Postfix', reply: '552 5.2.2 <someone@example.org>: Mailbox full', expect: ['bounced', 'mailbox_full', SOFT] },
  { from: 'Postfix', reply: '552 5.3.4 Message size exceeds fixed limit', expect: ['bounced', 'message_too_large', SOFT] },
  { from: 'Postfix', reply: '554 5.7.1 Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.5', expect: ['bounced', 'spam_block', SOFT] },
  { from: 'Postfix', reply: '554 5.7.1 <someone@example.org>: Relay access denied', expect: ['bounced', 'relay_denied', SOFT] },
  { from: 'Postfix', reply: '554 5.7.1 <someone@example.org>: Recipient address rejected: Access denied', expect: ['bounced', 'policy', SOFT] },
  { from: 'Postfix', reply: '450 4.7.1 Client host rejected: cannot find your hostname, [203.0.113.5]', expect: ['deferred', 'auth_failure', SOFT] },
  { from: 'Postfix', reply: '550 5.1.2 <someone@nonexistent.example>: Recipient address rejected: Domain not found', expect: ['bounced', 'domain_not_found', HARD] },
  { from: 'Postfix', reply: '450 4.1.2 <someone@flaky.example>: Recipient address rejected: Domain not found', expect: ['deferred', 'domain_not_found', SOFT] },
  { from: 'Postfix', reply: '452 4.5.3 Error: too many recipients', expect: ['deferred', 'rate_limited', SOFT] },
  { from: 'Postfix', reply: '452 4.3.1 Insufficient system storage', expect: ['deferred', 'temporary', SOFT] },
  { from: 'Postfix', reply: '504 5.5.2 <bounces>: Sender address rejected: need fully-qualified address', expect: ['bounced', 'policy', SOFT] },
  { from: 'Postfix', reply: '501 5.1.3 Bad recipient address syntax', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Postfix', reply: '421 4.4.2 mx.example.org Error: timeout exceeded', expect: ['deferred', 'network', SOFT] },
  { from: 'Postfix', reply: '450 4.1.1 <someone@example.org>: Recipient address rejected: unverified address: host mx.example.org said: 550 5.1.1 unknown', expect: ['deferred', 'unknown_user', SOFT] },
  { from: 'Postfix', reply: '530 5.7.0 Must issue a STARTTLS command first', expect: ['bounced', 'policy', SOFT] },
  // Exim and cPanel
  { from: 'Exim', reply: '550 Unrouteable address', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Exim (cPanel)', reply: '550 No Such User Here', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Exim', reply: '550-Verification failed for <bounces+abc@send.example.com>\r\n550-Unrouteable address\r\n550 Sender verify failed', expect: ['bounced', 'policy', SOFT] },
  { from: 'Exim', reply: '550 Administrative prohibition', expect: ['bounced', 'policy', SOFT] },
  { from: 'Exim', reply: '552 Message size exceeds maximum permitted', expect: ['bounced', 'message_too_large', SOFT] },
  { from: 'Exim', reply: '550 rejected because 203.0.113.5 is in a black list at zen.spamhaus.org', expect: ['bounced', 'spam_block', SOFT] },
  { from: 'Exim', reply: '451 Temporary local problem - please try later', expect: ['deferred', 'temporary', SOFT] },
  { from: 'Exim', reply: '451 Could not complete sender verify callout', expect: ['deferred', 'policy', SOFT] },
  { from: 'Exim', reply: '550 Mailbox is full / Blocks limit exceeded / Inode limit exceeded', expect: ['bounced', 'mailbox_full', SOFT] },
  { from: 'Exim', reply: '550 relay not permitted', expect: ['bounced', 'relay_denied', SOFT] },
  { from: 'Exim (cPanel)', reply: '550 The mail server could not deliver mail to someone@example.org. The account or domain may not exist, they may be blacklisted, or missing the proper dns entries.', expect: ['bounced', 'spam_block', SOFT] },
  // qmail and sendmail
  { from: 'qmail', reply: '511 sorry, no mailbox here by that name (#5.1.1 - chkuser)', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'qmail', reply: "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)", expect: ['bounced', 'relay_denied', SOFT] },
  { from: 'sendmail', reply: '550 5.1.1 <someone@example.org>... User unknown', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'sendmail', reply: '553 5.3.0 <someone@example.org>... Addressee unknown, relay=[203.0.113.5]', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'sendmail', reply: '451 4.4.1 reply: read error from mx.example.org.', expect: ['deferred', 'network', SOFT] },
  { from: 'sendmail', reply: '554 5.0.0 Service unavailable', expect: ['bounced', 'other', SOFT] },
  // iCloud
  { from: 'iCloud', reply: '550 5.1.1 <someone@icloud.com>: inactive email address', expect: ['bounced', 'mailbox_disabled', HARD] },
  { from: 'iCloud', reply: '554 5.7.1 [CS01] Message rejected due to local policy. Please visit https://support.apple.com/en-us/HT204137', expect: ['bounced', 'policy', SOFT] },
  { from: 'iCloud', reply: '552 5.2.2 <someone@icloud.com>: user is over quota', expect: ['bounced', 'mailbox_full', SOFT] },
  { from: 'iCloud (Proofpoint)', reply: '550 5.7.0 Blocked - see https://support.proofpoint.com/dnsbl-lookup.cgi?ip=203.0.113.5', expect: ['bounced', 'spam_block', SOFT] },
  // Yandex and Mail.ru
  { from: 'Yandex', reply: '550 5.7.1 No such user!', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Yandex', reply: '554 5.7.1 [2] Message rejected under suspicion of SPAM; https://ya.cc/1IrBc 1700000000-AbCdEfGh', expect: ['bounced', 'content_rejected', SOFT] },
  { from: 'Yandex', reply: '451 4.7.1 Sorry, the service is currently unavailable. Please come back later.', expect: ['deferred', 'temporary', SOFT] },
  { from: 'Yandex', reply: '552 5.2.2 Mailbox size limit exceeded', expect: ['bounced', 'mailbox_full', SOFT] },
  { from: 'Mail.ru', reply: '550 Message was not accepted -- invalid mailbox.  Local mailbox someone@mail.ru is unavailable: user not found', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Mail.ru', reply: '550 Message was not accepted -- invalid mailbox.  Local mailbox someone@mail.ru is unavailable: account is disabled', expect: ['bounced', 'mailbox_disabled', HARD] },
  { from: 'Mail.ru', reply: '550 spam message rejected. Please visit https://help.mail.ru/notspam-support/id?c=AbCdEf or report details to abuse@corp.mail.ru. Error code: 1A2B3C. ID: 0000.', expect: ['bounced', 'content_rejected', SOFT] },
  { from: 'Mail.ru', reply: '421 4.7.1 Sorry, too many connections from your IP address (203.0.113.5); try again later', expect: ['deferred', 'rate_limited', SOFT] },
  // GMX and web.de (multi-line, no enhanced codes)
  { from: 'GMX', reply: '550 Requested action not taken: mailbox unavailable', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'GMX', reply: '554-gmx.net (mxgmx017) Nemesis ESMTP Service not available\r\n554-No SMTP service\r\n554-IP address is block listed.\r\n554 For explanation visit https://www.gmx.net/mail/senderguidelines?c=bl', expect: ['bounced', 'spam_block', SOFT] },
  { from: 'web.de', reply: '554-Transaction failed\r\n554-Reject due to policy restrictions.\r\n554 For explanation visit https://web.de/email/senderguidelines?ip=203.0.113.5&c=hi', expect: ['bounced', 'policy', SOFT] },
  { from: 'GMX', reply: '552 Requested mail action aborted: exceeded storage allocation', expect: ['bounced', 'mailbox_full', SOFT] },
  // Comcast
  { from: 'Comcast', reply: '550 5.1.1 <someone@comcast.net> recipient does not exist here.', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Comcast', reply: '554 resimta-h1p-028598.sys.comcast.net comcast 203.0.113.5 found on one or more DNSBLs, see http://postmaster.comcast.net/smtp-error-codes.php#BL000001', expect: ['bounced', 'spam_block', SOFT] },
  { from: 'Comcast', reply: '421 resimta-po-29v.sys.comcast.net comcast 203.0.113.5 Too many sessions opened RL000001', expect: ['deferred', 'rate_limited', SOFT] },
  // Filtering gateways
  { from: 'Mimecast', reply: '550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550 [AbCdEf.us123]', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'Mimecast', reply: '550 Rejected by header based Anti-Spoofing policy: someone@example.org', expect: ['bounced', 'policy', SOFT] },
  { from: 'Barracuda', reply: '554 Service unavailable; Client host [203.0.113.5] blocked using Barracuda Reputation; http://www.barracudanetworks.com/reputation/?r=1&ip=203.0.113.5', expect: ['bounced', 'spam_block', SOFT] },
  { from: 'ClamAV milter', reply: '554 5.7.1 Virus found: Eicar-Test-Signature', expect: ['bounced', 'content_rejected', SOFT] },
  // Odd shapes: lowercase, no enhanced code, RFC 5321 corner cases
  { from: 'a lowercase server', reply: '550 5.1.1 user unknown', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'a terse server', reply: '550 5.1.1', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'a terse server', reply: '550 5.7.1', expect: ['bounced', 'policy', SOFT] },
  { from: 'a terse server', reply: '550 Message rejected', expect: ['bounced', 'other', SOFT] },
  { from: 'an old server', reply: '552 Too many recipients', expect: ['deferred', 'rate_limited', SOFT] },
  { from: 'a terse server', reply: '552 5.5.3 Too many recipients', expect: ['deferred', 'rate_limited', SOFT] },
  { from: 'a terse server', reply: '421 Service not available, closing transmission channel', expect: ['deferred', 'temporary', SOFT] },
  { from: 'a terse server', reply: '452 4.2.2 Mailbox full', expect: ['deferred', 'mailbox_full', SOFT] },
  { from: 'a greylisting server', reply: '451 4.7.1 Please try again later', expect: ['deferred', 'rate_limited', SOFT] },
  { from: 'a content filter', reply: '451 4.7.1 Message held as possible spam, try again later', expect: ['deferred', 'content_rejected', SOFT] },
  { from: 'a terse server', reply: '450 4.4.4 Unable to route', expect: ['deferred', 'network', SOFT] },
  { from: 'a terse server', reply: '554 5.4.4 Unable to route', expect: ['bounced', 'domain_not_found', HARD] },
  { from: 'a server quoting SPF', reply: '550 5.7.23 SPF validation failed for example.com', expect: ['bounced', 'auth_failure', SOFT] },
  { from: 'a strict server', reply: '451 4.7.24 SPF temporary error: DNS timeout', expect: ['deferred', 'auth_failure', SOFT] },
  { from: 'a blocking server', reply: '451 4.7.1 Service unavailable - Client host [203.0.113.5] blocked using b.barracudacentral.org', expect: ['deferred', 'spam_block', SOFT] },
  { from: 'a Microsoft EOP server', reply: '550 5.7.515 Access denied, sending domain example.com doesn\'t meet the required authentication level.', expect: ['bounced', 'auth_failure', SOFT] },
  // Status codes with no telling text
  { from: 'Lotus Domino', reply: '550 5.1.1 <someone@example.org>... not listed in Domino Directory', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'a terse server', reply: '550 5.2.1 Mailbox cannot be accessed', expect: ['bounced', 'mailbox_disabled', HARD] },
  { from: 'a terse server', reply: '552 5.2.2 <someone@example.org>: Requested mail action aborted', expect: ['bounced', 'mailbox_full', SOFT] },
  { from: 'Exchange', reply: '550 5.3.4 ROUTING.SizeLimit; the message exceeds the route limit', expect: ['bounced', 'message_too_large', SOFT] },
  { from: 'a relay', reply: '554 5.4.7 Delivery time expired', expect: ['bounced', 'network', SOFT] },
  { from: 'a strict server', reply: '503 5.5.1 Error: need RCPT command', expect: ['bounced', 'protocol', SOFT] },
  { from: 'a strict server', reply: '554 5.5.3 Recipient limit reached', expect: ['deferred', 'rate_limited', SOFT] },
  { from: 'an old server', reply: '552 Requested mail action aborted', expect: ['bounced', 'message_too_large', SOFT] },
  { from: 'Gmail', reply: '550-5.7.1 [2001:db8::5] Our system has detected that this message does not meet\r\n550 5.7.1 IPv6 sending guidelines regarding PTR records and authentication. - gsmtp', expect: ['bounced', 'auth_failure', SOFT] },
  { from: 'a filtering server', reply: '550 SPF check failed: example.com does not designate 203.0.113.5 as permitted sender', expect: ['bounced', 'auth_failure', SOFT] },
  { from: 'a filtering server', reply: '554 5.7.1 Too many messages from 203.0.113.5, rate limit exceeded', expect: ['bounced', 'rate_limited', SOFT] },
  { from: 'Gmail submission', reply: '550 5.4.5 Daily user sending quota exceeded. - gsmtp', expect: ['bounced', 'rate_limited', SOFT] },
  { from: 'Postfix (soft_bounce)', reply: '450 <someone@example.org>: Recipient address rejected: User unknown in local recipient table', expect: ['deferred', 'unknown_user', SOFT] },
  { from: 'a small server', reply: '452 <someone@example.org>: Mailbox full, try again later', expect: ['deferred', 'mailbox_full', SOFT] },
  { from: 'sendmail', reply: '452 4.4.5 Insufficient disk space; try again later', expect: ['deferred', 'temporary', SOFT] },
  { from: 'a busy server', reply: '421 4.3.2 System not accepting network messages', expect: ['deferred', 'temporary', SOFT] },
  // Accepted
  { from: 'Gmail', reply: '250 2.0.0 OK  1700000000 d9-20020a05600c34c900b0040e3635ca65si1234567wmq.123 - gsmtp', expect: ['delivered', 'other', SOFT] },
  { from: 'Office 365', reply: '250 2.6.0 <abc@example.com> [InternalId=123456789, Hostname=AM0PR01MB1234.eurprd01.prod.outlook.com] Queued mail for delivery', expect: ['delivered', 'other', SOFT] },
  { from: 'Postfix', reply: '250 Ok: queued as 4ABC12DEF', expect: ['delivered', 'other', SOFT] },
  { from: 'an RFC 5321 server', reply: '251 User not local; will forward to <someone@example.net>', expect: ['delivered', 'other', SOFT] },
  // Unexpected replies
  { from: 'a confused server', reply: '354 Start mail input; end with <CRLF>.<CRLF>', expect: ['deferred', 'protocol', SOFT] },
  // No SMTP reply: DNS, TCP, TLS (code 0)
  { from: 'the connection', reply: 'ETIMEDOUT', expect: ['deferred', 'network', SOFT] },
  { from: 'the connection', reply: 'connect ECONNREFUSED 203.0.113.7:25', expect: ['deferred', 'network', SOFT] },
  { from: 'the connection', reply: 'read ECONNRESET', expect: ['deferred', 'network', SOFT] },
  { from: 'the connection', reply: 'Connection closed unexpectedly', expect: ['deferred', 'network', SOFT] },
  { from: 'the connection', reply: 'connect EHOSTUNREACH 203.0.113.7:25', expect: ['deferred', 'network', SOFT] },
  { from: 'the connection', reply: 'Client network socket disconnected before secure TLS connection was established', expect: ['deferred', 'network', SOFT] },
  { from: 'the connection', reply: 'EPROTOCOL Invalid greeting. response=hello: hello', expect: ['deferred', 'protocol', SOFT] },
  { from: 'the connection', reply: 'something nobody has seen before', expect: ['deferred', 'network', SOFT] },
  { from: 'the resolver', reply: 'DNS temporary failure for example.org (SERVFAIL)', expect: ['deferred', 'network', SOFT] },
  { from: 'the resolver', reply: 'getaddrinfo EAI_AGAIN mx.example.org', expect: ['deferred', 'network', SOFT] },
  { from: 'the resolver', reply: 'queryMx ETIMEOUT example.org', expect: ['deferred', 'network', SOFT] },
  { from: 'the resolver', reply: 'null MX: example.org accepts no mail (RFC 7505)', expect: ['bounced', 'domain_not_found', HARD] },
  { from: 'the resolver', reply: 'no MX and no A/AAAA records for example.org', expect: ['bounced', 'domain_not_found', HARD] },
  { from: 'the resolver', reply: 'queryMx ENOTFOUND nonexistent.example', expect: ['bounced', 'domain_not_found', HARD] },
  // Diagnostic-Code fields of RFC 3464 reports
  { from: 'a Postfix DSN', reply: 'smtp; 550 5.1.1 <someone@example.org>: Recipient address rejected: User unknown in local recipient table', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'a Postfix DSN', reply: "smtp; 550-5.1.1 The email account that you tried to reach does not exist. Please try 550-5.1.1 double-checking the recipient's email address for typos or 550-5.1.1 unnecessary spaces. 550 5.1.1 https://support.google.com/mail/?p=NoSuchUser - gsmtp", expect: ['bounced', 'unknown_user', HARD] },
  { from: 'a Postfix DSN', reply: 'X-Postfix; Host or domain name not found. Name service error for name=nonexistent.example type=AAAA: Host not found', expect: ['bounced', 'domain_not_found', HARD] },
  { from: 'a Postfix DSN', reply: 'X-Postfix; Host or domain name not found. Name service error for name=flaky.example type=MX: Host not found, try again', expect: ['deferred', 'network', SOFT] },
  { from: 'an Exchange DSN', reply: 'smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', expect: ['bounced', 'unknown_user', HARD] },
  { from: 'an Exim DSN', reply: 'smtp; 552 5.2.2 Quota exceeded (mailbox for user is full)', expect: ['bounced', 'mailbox_full', SOFT] },
  { from: 'a Postfix bounce notice', reply: 'host mx.example.org[198.51.100.2] said: 550 5.1.1 <someone@example.org>: Recipient address rejected: User unknown (in reply to RCPT TO command)', expect: ['bounced', 'unknown_user', HARD] },
];

const describe = ([result, cls, hard]: Expect) =>
  result === 'delivered' ? 'delivered' : result === 'deferred' ? `deferred as ${cls}` : `a ${hard ? 'hard' : 'soft'} ${cls} bounce`;

const label = (reply: string) => {
  const line = reply.replace(/\s+/g, ' ');
  return line.length > 70 ? `${line.slice(0, 67)}...` : line;
};

t.test('the corpus holds at least 70 real-world-shaped replies', async (t) => {
  t.ok(CORPUS.length >= 70, `${CORPUS.length} replies`);
});

for (const { from, reply, expect } of CORPUS) {
  t.test(`${from} "${label(reply)}" is ${describe(expect)}`, async (t) => {
    const c = classifyReply(parseReply(reply), shipped);
    t.same([c.result, c.class, c.hard], expect, `rule ${c.rule}`);
  });
}

t.test('every shipped rule is exercised by the corpus', async (t) => {
  const hit = new Set(CORPUS.map(({ reply }) => classifyReply(parseReply(reply), shipped).rule));
  const unused = shipped.rules.map((r) => r.rule.id).filter((id) => !hit.has(id));
  t.same(unused, [], 'rules no reply in the corpus reaches');
});

t.test('a transient reply never bounces and only a 2xx is delivered', async (t) => {
  for (const { reply } of CORPUS) {
    const parsed = parseReply(reply);
    const c = classifyReply(parsed, shipped);
    if (Math.floor(parsed.code / 100) === 4) t.equal(c.result, 'deferred', reply);
    t.equal(c.result === 'delivered', Math.floor(parsed.code / 100) === 2, reply);
    if (c.result !== 'bounced') t.equal(c.hard, false, reply);
  }
});

t.test('classification names the rule that decided and its reason', async (t) => {
  const c = classifyReply({ code: 550, enhanced: '5.1.1', text: 'user unknown' }, shipped);
  t.same(c, { result: 'bounced', class: 'unknown_user', hard: true, rule: 'unknown-user', reason: 'the mailbox does not exist' });
});

t.test('an unknown-user text wins over a 5.7.x policy code', async (t) => {
  t.equal(classifyReply({ code: 550, enhanced: '5.7.1', text: '<a@b.example>: Recipient address rejected: User unknown' }, shipped).hard, true);
  t.equal(classifyReply({ code: 550, enhanced: '5.7.1', text: 'Requested action not taken: mailbox unavailable' }, shipped).hard, false);
});

// ---- parsing -----------------------------------------------------------------------------------------------

t.test('a multi-line reply keeps its code, its enhanced code once, and every line of text', async (t) => {
  const reply = parseReply(
    "550-5.1.1 The email account that you tried to reach does not exist. Please try\r\n550-5.1.1 double-checking the recipient's email address for typos.\r\n550 5.1.1 https://support.google.com/mail/?p=NoSuchUser - gsmtp",
  );
  t.same(reply, {
    code: 550,
    enhanced: '5.1.1',
    text: "The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos. https://support.google.com/mail/?p=NoSuchUser - gsmtp",
  });
});

t.test('a multi-line reply without enhanced codes keeps its text', async (t) => {
  t.same(parseReply('554-Transaction failed\n554-Reject due to policy restrictions.\n554 For explanation visit https://web.de/'), {
    code: 554,
    text: 'Transaction failed Reject due to policy restrictions. For explanation visit https://web.de/',
  });
});

t.test('a one-line reply without an enhanced code has none', async (t) => {
  t.same(parseReply('550 Unrouteable address'), { code: 550, text: 'Unrouteable address' });
  t.same(parseReply('550 5.1.1'), { code: 550, enhanced: '5.1.1', text: '' });
  t.same(parseReply('250 2.0.0 OK'), { code: 250, enhanced: '2.0.0', text: 'OK' });
});

t.test('a number that only looks like an enhanced code stays in the text', async (t) => {
  t.same(parseReply('550 5.1.1.2 odd'), { code: 550, text: '5.1.1.2 odd' });
  t.same(parseReply('421 4.7.0 [TSS04] Messages deferred - 4.16.55.1; see the docs').enhanced, '4.7.0');
});

t.test('a Diagnostic-Code from a DSN reads like the reply it quotes', async (t) => {
  t.same(parseReply('smtp; 550 5.1.1 <x@y.example>: Recipient address rejected'), {
    code: 550,
    enhanced: '5.1.1',
    text: '<x@y.example>: Recipient address rejected',
  });
  t.same(parseReply('Diagnostic-Code: SMTP;550 5.1.10 RESOLVER.ADR.RecipientNotFound; not found'), {
    code: 550,
    enhanced: '5.1.10',
    text: 'RESOLVER.ADR.RecipientNotFound; not found',
  });
});

t.test('a folded Diagnostic-Code of a flattened multi-line reply loses its repeated markers', async (t) => {
  const reply = parseReply(
    'smtp; 550-5.1.1 The email account that you tried to reach does\n    not exist. Please try 550-5.1.1 double-checking.\n    550 5.1.1 https://support.google.com/mail/?p=NoSuchUser',
  );
  t.same(reply, {
    code: 550,
    enhanced: '5.1.1',
    text: 'The email account that you tried to reach does not exist. Please try double-checking. https://support.google.com/mail/?p=NoSuchUser',
  });
});

t.test('a non-SMTP Diagnostic-Code has code 0 and keeps its text', async (t) => {
  t.same(parseReply('X-Postfix; connect to mx.example.org[198.51.100.2]:25: Connection timed out'), {
    code: 0,
    text: 'connect to mx.example.org[198.51.100.2]:25: Connection timed out',
  });
});

t.test('a reply quoted in a bounce notice is found after "said:"', async (t) => {
  t.same(parseReply('host mx.example.org[198.51.100.2] said: 452 4.2.2 Mailbox full (in reply to RCPT TO command)'), {
    code: 452,
    enhanced: '4.2.2',
    text: 'Mailbox full',
  });
});

t.test('an empty reply is a code-0 failure with no text', async (t) => {
  t.same(parseReply(''), { code: 0, text: '' });
  t.equal(classifyReply(parseReply(''), shipped).result, 'deferred');
});

t.test('a DSN without an SMTP diagnostic takes its meaning from the Status field', async (t) => {
  t.same(replyFromDsn({ status: '5.1.1' }), { code: 554, enhanced: '5.1.1', text: '' });
  t.equal(classifyReply(replyFromDsn({ status: '5.1.1' }), shipped).hard, true);
  t.equal(classifyReply(replyFromDsn({ status: '4.4.1', diagnosticCode: 'X-Postfix; connect to mx.example.org: Connection timed out' }), shipped).result, 'deferred');
  t.same(replyFromDsn({ status: '5.2.2', diagnosticCode: 'smtp; 552 Mailbox full' }), { code: 552, enhanced: '5.2.2', text: 'Mailbox full' });
  t.same(replyFromDsn({ status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.10 not found' }).enhanced, '5.1.10');
});

t.test('a delivery error gives the server reply when there is one, else its code and message', async (t) => {
  const rejected = Object.assign(new Error("Can't send mail - all recipients were rejected"), {
    code: 'EENVELOPE',
    response: '550 5.1.1 <x@y.example>: Recipient address rejected: User unknown',
    responseCode: 550,
  });
  t.same(replyFromError(rejected), { code: 550, enhanced: '5.1.1', text: '<x@y.example>: Recipient address rejected: User unknown' });
  const refused = Object.assign(new Error('connect ECONNREFUSED 192.0.2.1:25'), { code: 'ECONNECTION' });
  t.same(replyFromError(refused), { code: 0, text: 'ECONNECTION connect ECONNREFUSED 192.0.2.1:25' });
  t.same(replyFromError(Object.assign(new Error('queryMx ENOTFOUND x.example'), { code: 'ENOTFOUND' })), { code: 0, text: 'queryMx ENOTFOUND x.example' });
  t.same(replyFromError('boom'), { code: 0, text: 'boom' });
});

// ---- outcomes ----------------------------------------------------------------------------------------------

t.test('an outcome keeps the raw reply and says delivered, deferred or bounced', async (t) => {
  t.same(outcomeOf('250 2.0.0 OK queued', shipped), { kind: 'delivered', reply: '250 2.0.0 OK queued' });
  t.same(outcomeOf('451 4.7.1 Please try again later\r\n', shipped), { kind: 'deferred', reply: '451 4.7.1 Please try again later', class: 'rate_limited' });
  t.same(outcomeOf('552 5.2.2 Mailbox full', shipped), { kind: 'bounced', reply: '552 5.2.2 Mailbox full', class: 'mailbox_full', hard: false });
  t.same(outcomeOf({ code: 550, enhanced: '5.1.1', text: 'User unknown' }, shipped), {
    kind: 'bounced',
    reply: '550 5.1.1 User unknown',
    class: 'unknown_user',
    hard: true,
  });
  t.same(outcomeOf({ code: 0, text: 'ETIMEDOUT' }, shipped), { kind: 'deferred', reply: 'ETIMEDOUT', class: 'network' });
});

// ---- the rules file ----------------------------------------------------------------------------------------

const shippedRules = (): { description: unknown; rules: Array<Record<string, unknown>> } => JSON.parse(readFileSync(projectPath('config', 'smtp-replies.json'), 'utf8'));

function withRulesFile(t: Test, content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'tern-rules-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'smtp-replies.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const catchAll = { id: 'rest', match: {}, result: 'deferred', class: 'protocol', hard: false, reason: 'anything else' };
const rule = (over: Record<string, unknown>) => ({ id: 'r', match: { code: '5xx' }, result: 'bounced', class: 'other', hard: false, reason: 'x', ...over });

function rejects(t: Test, content: unknown, message: RegExp): void {
  const file = withRulesFile(t, content);
  try {
    loadReplyRules(file);
    t.fail('the rules file was accepted');
  } catch (err) {
    t.ok(err instanceof ConfigError, 'a ConfigError');
    t.match((err as Error).message, message);
    t.ok((err as Error).message.includes(file), 'the message names the file');
  }
}

t.test('the shipped rules load validated and frozen', async (t) => {
  const rules = loadReplyRules();
  t.ok(Object.isFrozen(rules) && Object.isFrozen(rules.rules) && Object.isFrozen(rules.rules[0]!.rule.match));
  t.equal(rules.rules.length, shippedRules().rules.length);
  t.equal(rules.file, projectPath('config', 'smtp-replies.json'), 'from the shipped file');
});

t.test('a rules file that is not JSON is rejected with the parser message', async (t) => {
  rejects(t, '{ "rules": [', /cannot read SMTP reply rules file .*JSON/);
});

t.test('a rule with an unknown class is rejected naming the rule', async (t) => {
  rejects(
    t,
    { description: 'x', rules: [rule({ id: 'odd', class: 'sad' }), catchAll] },
    /rules\[0\] "odd"\.class: must be equal to one of the allowed values \(unknown_user, /,
  );
});

t.test('a rule with a malformed code or enhanced pattern is rejected', async (t) => {
  rejects(t, { description: 'x', rules: [rule({ match: { code: '5XX' } }), catchAll] }, /rules\[0\] "r"\.match\.code: must match pattern/);
  rejects(t, { description: 'x', rules: [rule({ match: { code: '5xx', enhanced: '5.7' } }), catchAll] }, /rules\[0\] "r"\.match\.enhanced: must match pattern/);
  rejects(t, { description: 'x', rules: [rule({ match: { code: '5xx', when: 'now' } }), catchAll] }, /unknown setting rules\[0\] "r"\.match\.when/);
});

t.test('a rule whose text is not a valid regular expression is rejected', async (t) => {
  rejects(
    t,
    { description: 'x', rules: [rule({ id: 'broken', match: { code: '5xx', text: 'user (unknown' } }), catchAll] },
    /rules\[0\] "broken": text is not a valid regular expression/,
  );
});

t.test('a text pattern that matches every reply is rejected', async (t) => {
  rejects(t, { description: 'x', rules: [rule({ match: { code: '5xx', text: 'full|' } }), catchAll] }, /matches the empty string/);
});

t.test('a rule may not bounce a 4xx, defer a 2xx or deliver a 5xx', async (t) => {
  rejects(t, { description: 'x', rules: [rule({ match: { code: '4xx' } }), catchAll] }, /result bounced contradicts code 4xx/);
  rejects(t, { description: 'x', rules: [rule({ match: { code: '2xx' }, result: 'deferred' }), catchAll] }, /result deferred contradicts code 2xx/);
  rejects(t, { description: 'x', rules: [rule({ result: 'delivered' }), catchAll] }, /result delivered contradicts code 5xx/);
});

t.test('only a bounce can be hard', async (t) => {
  rejects(t, { description: 'x', rules: [rule({ match: { code: '4xx' }, result: 'deferred', hard: true }), catchAll] }, /only a bounce can be hard/);
});

t.test('rule ids are unique', async (t) => {
  rejects(t, { description: 'x', rules: [rule({}), rule({}), catchAll] }, /duplicate id "r"/);
});

t.test('the last rule must match every reply and defer', async (t) => {
  rejects(t, { description: 'x', rules: [rule({})] }, /last rule must match every reply.*last rule must defer/);
  rejects(t, { description: 'x', rules: [{ ...catchAll, result: 'bounced' }] }, /last rule must defer/);
});

t.test('only the last rule may leave out the code', async (t) => {
  rejects(t, { description: 'x', rules: [rule({ match: { text: 'full' } }), catchAll] }, /"match.code" is required/);
});

t.test('a minimal valid rules file classifies by it', async (t) => {
  const file = withRulesFile(t, { description: 'x', rules: [rule({ id: 'all-5xx', hard: true, class: 'policy' }), catchAll] });
  const rules = loadReplyRules(file);
  t.equal(classifyReply({ code: 550, text: 'anything' }, rules).rule, 'all-5xx');
  t.equal(classifyReply({ code: 250, text: 'ok' }, rules).rule, 'rest');
});
