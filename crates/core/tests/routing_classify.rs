//! Classification tables in English and Chinese, the named misfires, and the signals.
//! The category is the learned model's; the matched lexicon terms still set the signals.

use switchyard_core::catalog::card::Category;
use switchyard_core::routing::{classify, Classification, Nudge, NO_SIGNAL_CONFIDENCE};

fn words(c: &Classification) -> Vec<&str> {
    c.matched.iter().map(|m| m.word.as_str()).collect()
}

fn features(c: &Classification) -> Vec<&str> {
    c.features.iter().map(|f| f.feature.as_str()).collect()
}

#[test]
fn english_tasks_classify_by_their_words() {
    let table = [
        (
            "Fix the null pointer exception in my Rust parser",
            Category::Coding,
        ),
        (
            "Write a function that reverses a linked list in Python",
            Category::Coding,
        ),
        (
            "Refactor the React component to use hooks",
            Category::Coding,
        ),
        (
            "Our CI pipeline fails on the PR after the last commit",
            Category::Coding,
        ),
        ("Solve the integral of x^2 sin(x) dx", Category::Math),
        (
            "Prove that there are infinitely many primes",
            Category::Math,
        ),
        ("Write a haiku about autumn leaves", Category::Creative),
        (
            "Brainstorm a slogan for our coffee shop",
            Category::Creative,
        ),
        ("Describe what is in this image", Category::Vision),
        ("Extract the table from this screenshot", Category::Vision),
        ("Translate this paragraph into French", Category::FastCheap),
        (
            "Summarize this article in three bullet points",
            Category::FastCheap,
        ),
        (
            "Research the latest news on solid-state batteries and cite sources",
            Category::Research,
        ),
        (
            "What are the pros and cons of a monolith? Think step by step.",
            Category::Reasoning,
        ),
        (
            "Solve this logic puzzle: who owns the zebra?",
            Category::Reasoning,
        ),
        ("Hello, how are you today?", Category::General),
        (
            "Write a cover letter email for a job application",
            Category::General,
        ),
    ];
    for (task, expected) in table {
        let got = classify(task);
        assert_eq!(
            got.category,
            expected,
            "{task:?} → {:?} from {:?}",
            got.category,
            features(&got)
        );
        assert!(
            got.confidence > 0.5,
            "{task:?} is clear: {}",
            got.confidence
        );
        assert!(
            !got.features.is_empty(),
            "{task:?}: the deciding features are listed"
        );
    }
}

#[test]
fn chinese_tasks_classify_by_phrases_inside_cjk_runs() {
    let table = [
        ("写一个Python函数，计算斐波那契数列", Category::Coding),
        ("修复登录页面的bug", Category::Coding),
        ("帮我重构这段代码", Category::Coding),
        ("翻译这段话成英文", Category::FastCheap),
        ("总结这篇文章的要点", Category::FastCheap),
        ("写一首关于秋天的诗", Category::Creative),
        ("证明根号2是无理数", Category::Math),
        ("看图说说这张照片里有什么", Category::Vision),
        ("调研一下最新的大模型论文", Category::Research),
        ("这个方案的利弊是什么，为什么", Category::Reasoning),
        ("你好", Category::General),
    ];
    for (task, expected) in table {
        let got = classify(task);
        assert_eq!(
            got.category,
            expected,
            "{task:?} → {:?} from {:?}",
            got.category,
            features(&got)
        );
    }
}

#[test]
fn substrings_of_words_never_match() {
    let table = [
        ("What is the capital of France?", ["api"].as_slice()),
        ("How can I improve my morning routine?", &["pr"]),
        ("Help me decide between two job offers", &["ci"]),
        (
            "Describe the rapid growth of the cities",
            &["api", "pr", "ci"],
        ),
    ];
    for (task, forbidden) in table {
        let got = classify(task);
        for word in forbidden {
            assert!(
                !words(&got).contains(word),
                "{task:?} matched {word:?}: {:?}",
                words(&got)
            );
        }
        assert_ne!(got.category, Category::Coding, "{task:?}");
    }
    assert_eq!(
        classify("Help me decide between two job offers").category,
        Category::Reasoning
    );
}

#[test]
fn ascii_words_inside_chinese_match_only_whole() {
    let got = classify("调用API接口然后打开PR");
    assert!(words(&got).contains(&"api"));
    assert!(words(&got).contains(&"pr"));
    let none = classify("请把rapid和capital这两个词翻译成中文");
    assert!(
        !words(&none).contains(&"api") && !words(&none).contains(&"pr"),
        "{:?}",
        words(&none)
    );
    assert_eq!(none.category, Category::FastCheap);
}

#[test]
fn no_signal_is_general_with_low_confidence() {
    for task in ["", "   ", "???", "…", "!!! ..."] {
        let got = classify(task);
        assert_eq!(got.category, Category::General, "{task:?}");
        assert_eq!(got.confidence, NO_SIGNAL_CONFIDENCE, "{task:?}");
        assert!(got.scores.is_empty(), "{task:?}");
        assert!(got.features.is_empty(), "{task:?}");
    }
    // Chit-chat is general; a one-line fact is fastCheap (the lexicon, which knew neither
    // word, called this one general with no signal).
    assert_eq!(classify("天气不错").category, Category::General);
    assert_eq!(
        classify("The capital of France").category,
        Category::FastCheap
    );
}

#[test]
fn confidence_grows_with_evidence() {
    let weak = classify("fix it");
    let strong = classify("Debug the segfault in the compiler, add a unit test and open a PR");
    assert_eq!(strong.category, Category::Coding);
    assert!(
        strong.confidence > weak.confidence,
        "{} vs {}",
        strong.confidence,
        weak.confidence
    );
    let mixed = classify("a poem and an equation");
    assert!(mixed.confidence < strong.confidence);
    assert!(strong.confidence < 1.0, "a probability, never certainty");
}

#[test]
fn stack_words_use_roles_ids_and_ambiguous_words_need_coding_context() {
    let got = classify("Add a PostgreSQL migration and a React page; deploy with k8s");
    assert_eq!(got.signals.stack, ["postgresql", "react", "kubernetes"]);
    assert_eq!(
        classify("Write a Go program that parses JSON")
            .signals
            .stack,
        ["go"]
    );
    assert_eq!(classify("用Rust写一个命令行工具").signals.stack, ["rust"]);
    assert!(classify("Remove rust from my bike chain")
        .signals
        .stack
        .is_empty());
    assert!(classify("Let's go to the park and react calmly")
        .signals
        .stack
        .is_empty());
    assert_ne!(
        classify("Remove rust from my bike chain").category,
        Category::Coding
    );
    let pg = classify("Tune the slow query on pg");
    assert_eq!(pg.signals.stack, ["postgresql"], "{:?}", words(&pg));
}

#[test]
fn needs_are_detected_with_a_context_estimate() {
    let vision = classify("What does the chart in this photo say?");
    assert!(vision.signals.needs.vision);
    let no_vision = classify("Write code that resizes images in a folder");
    assert!(
        !no_vision.signals.needs.vision,
        "writing image code does not need image input"
    );
    assert_eq!(no_vision.category, Category::Coding);

    assert!(
        classify("Use function calling to book the meeting")
            .signals
            .needs
            .tools
    );
    assert!(classify("调用工具查询天气").signals.needs.tools);
    assert!(
        classify("Return the result as JSON with name and age")
            .signals
            .needs
            .structured_output
    );
    assert!(
        !classify("Parse a JSON file in Rust")
            .signals
            .needs
            .structured_output
    );

    let repo = classify("Review the entire codebase for dead code");
    assert_eq!(repo.signals.needs.long_context, Some(200_000));
    assert_eq!(
        classify("Summarize this 300 page report")
            .signals
            .needs
            .long_context,
        Some(150_000)
    );
    assert_eq!(
        classify("Read the 200k token transcript")
            .signals
            .needs
            .long_context,
        Some(200_000)
    );
    assert_eq!(
        classify("总结这份10万字的小说").signals.needs.long_context,
        Some(100_000)
    );
    assert_eq!(
        classify("Summarize these 3 pages")
            .signals
            .needs
            .long_context,
        None
    );
    let pasted = "word ".repeat(20_000);
    let long = classify(&pasted)
        .signals
        .needs
        .long_context
        .expect("a long task needs a long context");
    assert!(long >= 25_000, "{long}");
}

#[test]
fn hints_for_speed_cost_and_stakes() {
    let cheap = classify("Quick and cheap: summarize this email");
    assert!(cheap.signals.hints.speed && cheap.signals.hints.cost);
    assert!(!cheap.signals.hints.critical);
    let stakes = classify("This is a critical change to the production payment service");
    assert!(stakes.signals.hints.critical && stakes.signals.hints.production);
    assert_eq!(cheap.signals.hints.nudge(), Some(Nudge::Down));
    assert_eq!(stakes.signals.hints.nudge(), Some(Nudge::Up));
    assert_eq!(
        classify("Cheap but critical fix").signals.hints.nudge(),
        Some(Nudge::Up)
    );
    assert_eq!(classify("Explain closures").signals.hints.nudge(), None);
    let zh = classify("尽快上线，注意安全");
    assert!(zh.signals.hints.speed && zh.signals.hints.production && zh.signals.hints.critical);
}

#[test]
fn classification_is_deterministic_and_explains_itself() {
    let task = "Refactor the Rust API handlers, then add unit tests and document the endpoints";
    let first = classify(task);
    for _ in 0..5 {
        assert_eq!(classify(task), first);
    }
    let total: f64 = first
        .matched
        .iter()
        .filter(|m| m.category == Some(first.category))
        .map(|m| m.weight)
        .sum();
    let lexicon = first
        .lexicon
        .iter()
        .find(|w| w.category == first.category)
        .expect("the lexicon weighs the category");
    assert!(
        (lexicon.weight - total).abs() < 1e-9,
        "lexicon weights are the sum of matched weights"
    );
    assert_eq!(first.scores[0].category, first.category);
    assert!(
        (first.scores[0].weight - first.confidence).abs() < 0.002,
        "the confidence is the top probability"
    );
    assert!(!first.features.is_empty(), "the model explains itself");
    assert!(first
        .matched
        .iter()
        .any(|m| m.signals.contains(&"stack:rust".to_owned())));
    let json = serde_json::to_value(&first).expect("serializes");
    for field in [
        "category",
        "confidence",
        "signals",
        "matched",
        "scores",
        "features",
        "model",
    ] {
        assert!(json.get(field).is_some(), "{field}");
    }
    assert!(json["signals"]["needs"].get("longContext").is_some());
    assert!(json["signals"]["needs"].get("structuredOutput").is_some());
}
